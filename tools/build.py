"""Rebuild lessons: ``python tools/build.py [NN ...]`` (no NN: every lesson).

For each lesson NN, from the repository root or anywhere else:

1. build ``notebooks/NN_*.ipynb`` and ``solutions/NN_*.ipynb`` from their text forms
   (``text/notebooks/NN_*.md``, ``text/solutions/NN_*.md``: what maintainers edit, see
   ``textforms.py``) and execute them, each on a fresh kernel of the Python running this
   script, in the notebook's own folder;
2. write ``exercises/NN_*.ipynb`` from the solution (``nbtools.make_exercise``).

A notebook whose cell raises (other than a cell marked ``# NBVAL_RAISES_EXCEPTION`` or
tagged ``raises-exception``) stops the build and is not overwritten.

Refusals protect what is stored:

- without the Graphviz ``dot`` program, a lesson that draws graphs would store them listed as text,
  and without torch, a lesson that imports it would store its "torch is not installed"
  fallbacks; the build stops unless given ``--allow-missing``, and only where a lesson being
  built needs what is missing (``missing_references``);
- an exercise notebook that has been run or has blanks filled in holds a learner's
  work; it is not overwritten unless given ``--force``;
- a lesson or solution notebook saved after its text form, with cells the text form lacks,
  holds edits made in JupyterLab; it is not built over unless given ``--force``
  (``tools/textforms.py NN`` carries the edits into the text form first).

- a solution notebook whose exercises ``nbtools.checked_exercise`` cannot read (a heading or a
  blank's marker it misreads) makes no exercise notebook: the build stops and names what to mend.

A cell marked to raise (``# NBVAL_RAISES_EXCEPTION`` or tagged ``raises-exception``) that ran
without an error stops the build too: nbval would accept it, and the lesson's words about the
error it shows would go on standing over none. The build runs with the engine of this clone's
``src/`` only: a Python that imports tinyad from elsewhere is refused, and the kernels import ``src/``
first.
``python tools/build.py --release DIR`` writes the learners' copy of the course instead
(``release``): no solutions and no tests of them, exercises made afresh from the solutions, and a
README made of README.md's parts for learners (``learners_readme``).
``python tools/build.py --nbgrader DIR`` writes the course as an nbgrader course instead
(``nbgrader_course.write_course``): one assignment per solution notebook, its lesson beside it.

Executed notebooks keep their outputs and only the metadata ``nbtools.normalise``
keeps (no timings, no widget views, one output per printed stream), so an unchanged lesson
rebuilds to the same text apart from the outputs of cells marked ``# NBVAL_IGNORE_OUTPUT``
(progress bars, timings, memory measured), which nbval does not compare.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import AsyncKernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
import nbformat
from tinyad.course.score_table import blanks_in, edits, exercises_of

import nbgrader_course
import nbtools

try:
    import textforms
except ModuleNotFoundError as missing:  # jupytext, of the test extra: --release and --nbgrader need none
    textforms = None
    TEXTFORMS_MISSING = missing

ROOT = Path(__file__).resolve().parent.parent


class CurrentPythonKernels(KernelSpecManager):
    """Every kernel name means an IPython kernel of the Python running this script."""

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return KernelSpec(
            argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                  "--log-level=ERROR"],
            display_name="Python 3",
            language="python",
        )


def shown(path: Path) -> str:
    """A path as the messages show it: relative to the repository when inside it."""
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def lessons(numbers: list[str]) -> list[str]:
    """The lesson numbers to build: those given, checked, or every one found."""
    found = sorted(
        {p.name[:2] for folder in ("notebooks", "solutions") for p in nbtools.lessons_in(ROOT / folder)}
        | {p.name[:2] for folder in textforms.FOLDERS for p in (ROOT / "text" / folder).glob("[0-9][0-9]_*.md")}
    )
    if not numbers:
        return found
    wanted = []
    for n in numbers:
        if not (n.isdigit() and len(n) <= 2):
            raise SystemExit(f"build.py: a lesson is a number like 01 or 1, got {n!r}")
        n = n.zfill(2)
        if n not in found:
            raise SystemExit(f"build.py: no notebooks/{n}_*.ipynb or solutions/{n}_*.ipynb")
        wanted.append(n)
    return wanted


def source_of(path: Path) -> nbformat.NotebookNode:
    """What notebook ``path`` is built from: its text form (what maintainers edit) where it has
    one, else the notebook itself; normalised, so a cell marked ``# NBVAL_RAISES_EXCEPTION``
    carries the ``raises-exception`` tag that nbclient reads too."""
    twin = textforms.text_path(path)
    if twin.exists():
        previous = nbtools.read(path) if path.exists() else None
        return textforms.from_text(twin.read_text(encoding="utf-8"), previous)
    return nbtools.normalise(nbtools.read(path))


def notebooks_of(number: str, folder: str) -> list[Path]:
    """Lesson ``number``'s notebooks in ``folder``: those stored, and those written as text only."""
    stored = {p.name for p in (ROOT / folder).glob(f"{number}_*.ipynb")}
    text_only = {p.stem + ".ipynb" for p in (ROOT / "text" / folder).glob(f"{number}_*.md")}
    return [ROOT / folder / name for name in sorted(stored | text_only)]


def run(nb: nbformat.NotebookNode, folder: Path, timeout: int, allow_errors: bool = False) -> None:
    """Run ``nb`` top to bottom, in place, on a fresh kernel of this Python started in ``folder``,
    importing this clone's engine; a cell's error stops it unless ``allow_errors``."""
    # The asynchronous manager: with the synchronous one, nbclient never enforced the timeout.
    kernel = AsyncKernelManager(kernel_name="python3", kernel_spec_manager=CurrentPythonKernels())
    client = NotebookClient(nb, km=kernel, timeout=timeout, allow_errors=allow_errors, record_timing=False,
                            resources={"metadata": {"path": str(folder)}})
    # A backend set outside (MPLBACKEND=Agg) would keep plots out of the notebook.
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    # The kernel starts in the notebook's folder, where a relative PYTHONPATH (PYTHONPATH=src) names
    # no engine, or another: it would import whichever tinyad is installed, not this clone's.
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    # cleanup_kc: nbclient shuts down only the kernels it starts, and this one it was handed
    # (it would live on, idle, until this Python exits: one per notebook run).
    client.execute(env=env, cleanup_kc=True)


def execute(path: Path, timeout: int) -> None:
    """Run a notebook top to bottom on a fresh kernel and save it with its outputs."""
    nb = source_of(path)
    start = time.perf_counter()
    try:
        run(nb, path.parent, timeout)
    except CellExecutionError as error:
        raise SystemExit(f"build.py: {shown(path)} failed, left unchanged:\n{error}")
    except CellTimeoutError:
        raise SystemExit(f"build.py: a cell of {shown(path)} ran longer than {timeout} s (--timeout), "
                         "left unchanged: a lesson's cells run in seconds") from None
    except DeadKernelError as error:
        raise SystemExit(f"build.py: the kernel running {shown(path)} died ({error}), left unchanged") from None
    quiet = [k for k, cell in enumerate(nb.cells) if cell.cell_type == "code"
             and nbtools.RAISES_TAG in cell.metadata.get("tags", [])
             and not any(output.output_type == "error" for output in cell.outputs)]
    if quiet:
        raise SystemExit(
            f"build.py: {shown(path)}'s cell {quiet[0]} is marked to raise (NBVAL_RAISES_EXCEPTION or "
            "the raises-exception tag) but ran without an error, left unchanged: drop the mark, or "
            "make the cell show the error the lesson speaks of"
        )
    for cell in nb.cells:  # a traceback through the engine names its file from the clone, not this machine
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                output.traceback = [FOLDERS_ABOVE_THE_ENGINE.sub("", line) for line in output.traceback]
    nbtools.write(nbtools.normalise(nb), path)
    print(f"executed  {shown(path)}  ({time.perf_counter() - start:.1f} s)")


def foreign_engine() -> str | None:
    """Where tinyad is imported from, when that is not this clone's ``src/`` (a second clone or a
    worktree sharing another's environment): the lessons would print and run that engine."""
    where = Path(sys.modules["tinyad"].__file__).resolve().parent
    return None if where.is_relative_to(ROOT / "src") else str(where)


# The folders before the engine's src/tinyad/ in a traceback's file names: the clone's place on the
# machine that built it (/home/.../tinyad/, or ~/tinyad/ as IPython shortens a home).
FOLDERS_ABOVE_THE_ENGINE = re.compile(r"(?:~|/)[^\x1b\n]*?/(?=src/tinyad/)")

# What a lesson's code cells use that its stored outputs are made with.
IMPORTS_TORCH = re.compile(r"^\s*(?:import|from)\s+torch\b", re.MULTILINE)
DRAWS = re.compile(r"\b(?:draw|BackwardStepper)\(")


def missing_references(numbers: list[str]) -> list[str]:
    """What this machine lacks that lessons ``numbers`` store outputs made with: the Graphviz dot
    program where a lesson draws a graph, torch where one imports it."""
    def lessons_whose_code(pattern: re.Pattern) -> list[str]:
        return [number for number in numbers
                if any(pattern.search(cell.source) for folder in textforms.FOLDERS
                       for path in notebooks_of(number, folder) for cell in source_of(path).cells
                       if cell.cell_type == "code")]

    def named(found: list[str]) -> str:
        return f"lesson{'s' if len(found) > 1 else ''} {', '.join(found)}"

    missing = []
    drawing = lessons_whose_code(DRAWS) if shutil.which("dot") is None else []
    if drawing:
        missing.append(f"the Graphviz dot program ({named(drawing)} would store graphs listed as text)")
    comparing = lessons_whose_code(IMPORTS_TORCH) if importlib.util.find_spec("torch") is None else []
    if comparing:
        missing.append(f"torch ({named(comparing)} would store the cells' no-torch fallbacks)")
    return missing


def learner_work(exercise: Path, fresh: nbformat.NotebookNode) -> str | None:
    """Why ``exercise`` looks like a learner's work that writing ``fresh`` would lose, or None."""
    if not exercise.exists():
        return None
    current = nbtools.read(exercise)
    if nbtools.dumps(current) == nbtools.dumps(fresh):
        return None
    ran = [k for k, c in enumerate(current.cells) if c.cell_type == "code" and (c.outputs or c.execution_count)]
    if ran:
        return f"cells {ran} have been run"
    # Read as the score table reads a learner's notebook: each answer cell records the blanks it
    # was handed out with, and each exercise's heading the code cells (counted against the new
    # notebook instead, an exercise added to the solution since would read as a blank filled in).
    exercises = exercises_of(current)
    counts = [exercise.blanks() for exercise in exercises]
    handed = sum(given for given, _ in counts)
    filled = sum(max(0, given - left) for given, left in counts)
    if not handed:  # no record (a solution copied over the exercise, or an exercise made before answer
        # cells recorded their blanks): the new notebook's blanks against those left in any code cell
        handed = sum(blanks_in(c.source) for c in fresh.cells if c.cell_type == "code")
        filled = max(0, handed - sum(blanks_in(c.source) for c in current.cells if c.cell_type == "code"))
    if filled:
        return f"{filled} of its {handed} blanks {'is' if filled == 1 else 'are'} filled in"
    added, changed = edits(current)
    if added:
        return f"{added} code {'cell' if added == 1 else 'cells'} added"
    if changed:
        return f"{changed} handed-out code {'cell' if changed == 1 else 'cells'} changed"
    present = {cell.get("id") for cell in current.cells}
    gone = [cell_id for exercise in exercises for cell_id in sorted(exercise.given or ()) if cell_id not in present]
    if gone:
        return (f"{len(gone)} of the cells handed out in its exercises {'is' if len(gone) == 1 else 'are'} "
                "gone, deleted or replaced by a cell of the learner's")
    return None


def build(number: str, timeout: int, force: bool = False) -> None:
    """Execute lesson ``number``'s lesson and solution notebooks, then regenerate its exercises."""
    solutions = notebooks_of(number, "solutions")
    # A notebook changed in JupyterLab after its text form was written holds edits that building
    # from the text form would silently drop.
    edited = [path for folder in textforms.FOLDERS for path in notebooks_of(number, folder)
              if textforms.edited_side(path) == "notebook"]
    if edited and not force:
        sys.exit(
            f"{', '.join(shown(p) for p in edited)} saved after {'its' if len(edited) == 1 else 'their'} "
            f"text form, with cells it lacks ({textforms.difference(edited[0])}): building from the text "
            f"would drop them. Carry them into the text form (python tools/textforms.py {number}) and "
            "build again, or pass --force to build from the text form as it is."
        )
    # Each exercise is made, and refused, before anything executes: it has no outputs, so the
    # solution's source, executed or not, decides what it will be.
    blank_exercises = {}
    for solution in solutions:
        try:
            blank_exercises[solution] = nbtools.checked_exercise(source_of(solution), solution.name)
        except ValueError as error:
            sys.exit(f"build.py: {error}")
        exercise = ROOT / "exercises" / solution.name
        if force:  # replaced whatever it holds, readable or not
            continue
        try:  # only the reading raises it: an error in what learner_work makes of the notebook is a bug here
            work = learner_work(exercise, blank_exercises[solution])
        except nbtools.NotebookReadError as error:
            sys.exit(f"{shown(exercise)} is not a notebook build.py can read ({error.why}); pass --force to "
                     "replace it with the blank exercise")
        if work:
            sys.exit(
                f"{shown(exercise)} looks like a learner's work ({work}); not overwritten. "
                "Keep it elsewhere, or pass --force to replace it with the blank exercise."
            )
    for folder in textforms.FOLDERS:
        for path in notebooks_of(number, folder):
            execute(path, timeout)
    for solution, blank in blank_exercises.items():
        exercise = ROOT / "exercises" / solution.name
        exercise.parent.mkdir(exist_ok=True)
        nbtools.write(blank, exercise)
        print(f"generated {shown(exercise)}")


# What a learner gets: the course, its settings, the engine, the grading plugin
# (src/tinyad/course/score_table.py, loaded by conftest.py), and the benchmarks lessons 09 and 10
# point to (device_bench.py is for a learner with a GPU). tests/ only for nbval's sanitiser.
# README.md is not copied: the release's README is learners_readme's.
RELEASE_FILES = ["pyproject.toml", "environment.yml", "postBuild", "conftest.py",
                 ".gitignore", "tests/nbval_sanitize.cfg"]
RELEASE_FOLDERS = ["src", "notebooks", "benchmarks"]
TESTPATHS = 'testpaths = ["tests", "notebooks", "solutions"]'
# README.md marks the parts that belong in the learners' README, which has no instructors' or
# maintainers' sections and names nothing the release lacks (tools/, solutions/, text/, ...).
LEARNERS_BEGIN, LEARNERS_END = "<!-- learners' README: begin -->", "<!-- learners' README: end -->"


def new_folder(target: Path, what: str) -> None:
    """Make ``target`` for ``what``, refusing a folder that holds anything or lies inside the course."""
    if target.exists() and any(target.iterdir()):
        sys.exit(f"build.py: {target} is not empty; give a new folder for {what}")
    if target.resolve().is_relative_to(ROOT):
        sys.exit(f"build.py: {target} is inside the course; give a folder outside it")
    target.mkdir(parents=True, exist_ok=True)


def learners_readme(readme: str) -> str:
    """The learners' README: the parts of ``readme`` between its learners' markers, in order."""
    parts = []
    rest = readme
    while LEARNERS_BEGIN in rest:
        before, _, rest = rest.partition(LEARNERS_BEGIN)
        part, found, rest = rest.partition(LEARNERS_END)
        if LEARNERS_END in before or not found or LEARNERS_BEGIN in part:
            sys.exit(f"build.py: README.md's markers {LEARNERS_BEGIN} and {LEARNERS_END} must come in pairs")
        parts.append(part.strip("\n"))
    if not parts or LEARNERS_END in rest:
        sys.exit(f"build.py: README.md needs pairs of markers {LEARNERS_BEGIN} and {LEARNERS_END} "
                 "around the parts that belong in the learners' README")
    return "\n\n".join(parts) + "\n"


def exercises_of_the_course(refusal: str) -> dict[str, nbformat.NotebookNode]:
    """Each lesson's exercise notebook, by name, made from its solution before anything is written: a
    solution the build would misread (a misspelt marker would hand an answer out) stops the build,
    its message beginning with ``refusal``."""
    exercises = {}
    for solution in nbtools.lessons_in(ROOT / "solutions"):
        try:
            exercises[solution.name] = nbtools.checked_exercise(nbtools.read(solution), solution.name)
        except ValueError as error:
            sys.exit(f"build.py: {refusal}: {error}")
    return exercises


def release(target: Path) -> None:
    """Write the learners' copy of the course into ``target`` (new or empty), as a git repository
    when git is installed, so ``git checkout -- exercises/NN_name.ipynb`` starts a notebook over."""
    exercises = exercises_of_the_course("not released")
    new_folder(target, "the release")
    readme = learners_readme((ROOT / "README.md").read_text(encoding="utf-8"))
    (target / "README.md").write_text(readme, encoding="utf-8")
    for name in RELEASE_FILES:
        (target / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, target / name)
    junk = shutil.ignore_patterns("__pycache__", "*.egg-info", ".ipynb_checkpoints")
    for name in RELEASE_FOLDERS:
        shutil.copytree(ROOT / name, target / name, ignore=junk)
    for stray in (target / "notebooks").glob("*.ipynb"):  # an Untitled.ipynb would fail the learners' tests
        if not nbtools.is_lesson(stray.name):
            stray.unlink()
    (target / "exercises").mkdir()
    for name, exercise in exercises.items():
        nbtools.write(exercise, target / "exercises" / name)
    settings = (target / "pyproject.toml").read_text(encoding="utf-8")
    if TESTPATHS not in settings:
        sys.exit(f"build.py: pyproject.toml has no line {TESTPATHS!r} to adapt for the release")
    # `python -m pytest` in the release runs the lessons; there are no solutions or tests.
    (target / "pyproject.toml").write_text(settings.replace(TESTPATHS, 'testpaths = ["notebooks"]'),
                                           encoding="utf-8")
    if shutil.which("git"):
        git = ["git", "-c", "user.name=tinyad", "-c", "user.email=tinyad@localhost", "-C", str(target)]
        for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "The course, as handed out"]):
            subprocess.run(git + command, check=True, capture_output=True)
    else:
        print("git is not installed: the release is a plain folder, not a git repository, so learners "
              "cannot start a notebook over with git checkout")
    print(f"released the course into {target}: no solutions/, exercises blank")


def main() -> None:
    """Parse the lesson numbers and build each lesson."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("lessons", nargs="*", metavar="NN", help="lesson numbers (default: all)")
    parser.add_argument("--timeout", type=int, default=300, help="seconds per cell (default 300)")
    parser.add_argument(
        "--allow-missing", action="store_true", help="build without dot or torch (stores fallbacks)"
    )
    parser.add_argument(
        "--force", action="store_true",
        help="overwrite exercise notebooks that hold a learner's work, and build over lesson notebooks "
             "saved after their text forms"
    )
    parser.add_argument(
        "--release", metavar="DIR", type=Path,
        help="write the learners' copy (no solutions, no tests) into DIR instead of building",
    )
    parser.add_argument(
        "--nbgrader", metavar="DIR", type=Path,
        help="write the course as an nbgrader course (nbgrader_course.py) into DIR instead of building",
    )
    args = parser.parse_args()
    if args.timeout <= 0:
        parser.error(f"--timeout is seconds per cell, a number above 0, got {args.timeout}")
    if args.release and args.nbgrader:
        parser.error("--release and --nbgrader write two different copies of the course: one at a time")
    if (args.release or args.nbgrader) and args.lessons:
        parser.error("--release and --nbgrader copy every lesson as it is built: give no lesson numbers")
    if args.release:
        release(args.release)
        return
    if args.nbgrader:
        exercises_of_the_course("no nbgrader course written")  # the check only: nbgrader makes the blanks
        new_folder(args.nbgrader, "the nbgrader course")
        names = nbgrader_course.write_course(ROOT, args.nbgrader)
        print(f"wrote the nbgrader course into {args.nbgrader}: {len(names)} assignments, "
              f"{names[0]} to {names[-1]}; next, from there: nbgrader generate_assignment NN_name")
        return
    if textforms is None:
        sys.exit(f"build.py: building lessons from their text forms needs {TEXTFORMS_MISSING.name} "
                 "(python -m pip install -e \".[test]\")")
    elsewhere = foreign_engine()
    if elsewhere:
        sys.exit(f"build.py: this Python imports tinyad from {elsewhere}, not from {shown(ROOT / 'src')}: the "
                 "lessons would print and run that engine. Install this clone (python -m pip install -e .) "
                 "or run with PYTHONPATH=src")
    numbers = lessons(args.lessons)
    missing = missing_references(numbers)
    if missing and not args.allow_missing:
        sys.exit(
            "not building: this machine lacks " + " and ".join(missing) + ". Install them (README, "
            "'Two commands': Graphviz, and PyTorch with python -m pip install -e \".[torch]\"), or pass "
            "--allow-missing to store the fallbacks."
        )
    for number in numbers:
        build(number, args.timeout, args.force)


if __name__ == "__main__":
    main()
