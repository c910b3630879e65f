"""The set-up files agree: environment.yml names what pyproject.toml names."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import nbformat
import pytest
import yaml

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the backport the test extra installs
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent

# conda-forge spells a few packages differently from PyPI.
CONDA_TO_PIP = {"python-graphviz": "graphviz", "matplotlib-base": "matplotlib"}
# In environment.yml but not a pip requirement: the interpreter, pip, and the dot program.
CONDA_ONLY = {"python", "pip", "graphviz"}


def _split(spec: str) -> tuple[str, str]:
    name, version = re.match(r"\s*([A-Za-z0-9_.\-]+)\s*(.*)", spec).groups()
    return name.lower(), version.replace(" ", "")


def _pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _pip_requirements() -> dict[str, str]:
    """Runtime dependencies and the test and browser extras, as pyproject.toml writes them
    (the file, not the installed metadata, which is stale until the next pip install)."""
    project = _pyproject()
    extras = project["optional-dependencies"]
    wanted = {}
    for req in project["dependencies"] + extras["test"] + extras["browser"]:
        spec, _, _marker = req.partition(";")  # environment.yml installs regardless
        name, version = _split(spec)
        wanted[name] = version
    return wanted


def _conda_requirements() -> dict[str, str]:
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    assert env["channels"] == ["conda-forge"]
    found = {}
    for dep in env["dependencies"]:
        if not isinstance(dep, str):
            continue  # a pip: section
        name, version = _split(dep)
        if name in CONDA_ONLY:
            continue
        found[CONDA_TO_PIP.get(name, name)] = version
    return found


def test_environment_yml_and_pyproject_name_the_same_packages():
    pip, conda = _pip_requirements(), _conda_requirements()
    assert set(conda) == set(pip), (
        f"only in environment.yml: {sorted(set(conda) - set(pip))}; "
        f"only in pyproject.toml: {sorted(set(pip) - set(conda))}"
    )
    differ = {name: (pip[name], conda[name]) for name in pip if pip[name] != conda[name]}
    assert not differ, f"versions differ (pyproject, environment.yml): {differ}"


def test_environment_yml_brings_the_graphviz_program_and_python():
    env = yaml.safe_load((ROOT / "environment.yml").read_text(encoding="utf-8"))
    specs = dict(_split(d) for d in env["dependencies"] if isinstance(d, str))
    assert {"graphviz", "python-graphviz", "python", "pip"} <= set(specs)
    assert specs["python"] == _pyproject()["requires-python"], (
        f"environment.yml asks for python{specs['python']}, "
        f"pyproject.toml for {_pyproject()['requires-python']}"
    )


def test_binder_installs_tinyad_after_the_environment():
    post_build = (ROOT / "postBuild").read_text(encoding="utf-8")
    assert "pip install --no-deps --no-build-isolation -e ." in post_build
    # Without build isolation the build takes the environment's setuptools: it must be there, and
    # as new as pyproject.toml's build-system asks.
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    needed = dict(map(_split, settings["build-system"]["requires"]))
    conda = _conda_requirements()
    assert needed and all(conda.get(name) == version for name, version in needed.items()), (needed, conda)


def test_ci_runs_the_readme_commands_word_for_word():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    for command in ('python -m pip install -e . && python -m jupyter lab --notebook-dir=. notebooks/01_value.ipynb',
                    'python -m pip install -e ".[test]" && python -m pytest'):
        assert command in readme and f"'{command}'" in ci, command
    # The learner's path comes first, in a fresh venv, before torch or dot is installed.
    learner = ci.index('bash -c "$RUN_TESTS"')
    assert ci.index('"$LEARNER_PYTHON" -m venv "$VENV"') < ci.index('. "$VENV/bin/activate"') < learner
    assert learner < ci.index("pip install -q torch==2.13.0") and learner < ci.index("apt-get install -y -qq graphviz")


def test_ci_holds_every_requirement_to_its_floor():
    # .ci/run installs these in a second environment: each floor of pyproject.toml, tested.
    import importlib.util

    spec = importlib.util.spec_from_file_location("oldest_versions", ROOT / ".ci" / "oldest_versions.py")
    oldest_versions = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(oldest_versions)
    project = _pyproject()
    pins = oldest_versions.constraints({"project": project})
    assert len(pins) == len(project["dependencies"]) + len(project["optional-dependencies"]["test"])
    assert {"numpy==2.1.*", "pytest==8.0.*", "matplotlib==3.8.4", "tomli==2.0.*; python_version < '3.11'"} <= set(pins)
    with pytest.raises(ValueError, match="'numpy<3': every requirement of the course is 'name>=floor'"):
        oldest_versions.oldest("numpy<3")
    assert "oldest_versions.py" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_ci_runs_the_oldest_versions_reading_text_as_windows_does():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert 'AS_WINDOWS=(env LOCPATH="$LOCALES" LC_ALL=en_US.CP1252 PYTHONUTF8=0)' in ci
    runs = re.findall(r'^(.*)"\$OLDEST/bin/python" -m pytest', ci, flags=re.MULTILINE)
    assert len(runs) == 3 and all(run.startswith('"${AS_WINDOWS[@]}" ') for run in runs), runs
    # The score table's tests, beside the lessons, grade on one core (tests/test_score_table.py, AT_ONCE).
    assert runs[0] == '"${AS_WINDOWS[@]}" taskset -c "$(($(nproc) - 1))" ', runs


def test_ci_takes_the_learners_path_on_the_newest_python_and_the_references_on_python3():
    # A Python installed today is 3.12 or newer, and gets releases the machine's python3 (3.11) does
    # not (NumPy 2.5 needs 3.12): the README's commands run on the newest Python found. The CPU
    # build of PyTorch that CI installs is made for python3's version: step 3 has an environment of its own.
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    newest = ci.index('if [ "$version" -gt "$newest" ]; then LEARNER_PYTHON=$candidate')
    assert newest < ci.index('"$LEARNER_PYTHON" -m venv "$VENV"')
    assert '"$MACHINE_PYTHON" -m venv "$REFERENCES"' in ci
    assert '"$REFERENCES/bin/python" -m pip install -q torch==2.13.0 jax' in ci
    step3 = ci[ci.index('step "3.'):ci.index('step "4.')]
    runs = re.findall(r"^(.*?)-m pytest", step3, flags=re.MULTILINE)
    assert len(runs) == 2 and all(run.strip() == '"$REFERENCES/bin/python"' for run in runs), runs


def _mode(call: ast.Call, position: int) -> ast.expr | None:
    """The mode an ``open`` call gives, by keyword or at its ``position``; None where it gives none."""
    given = [k.value for k in call.keywords if k.arg == "mode"] + call.args[position:position + 1]
    return given[0] if given else None


def _text_io_without_an_encoding(source: str) -> list[str]:
    """The calls in ``source`` that open, read or write a file as text in the system's own encoding:
    ``open(...)`` without ``encoding=`` and not in a binary mode, and a path's ``open``, ``read_text``
    and ``write_text`` likewise (``textforms.write_text`` writes a notebook's text form, in UTF-8)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or any(k.arg == "encoding" for k in node.keywords):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id == "open":
            mode = _mode(node, 1)
        elif isinstance(func, ast.Attribute) and func.attr == "open":
            mode = _mode(node, 0)
        elif (isinstance(func, ast.Attribute) and func.attr in ("read_text", "write_text")
              and not (isinstance(func.value, ast.Name) and func.value.id == "textforms")):
            mode = None
        else:
            continue
        if not (isinstance(mode, ast.Constant) and "b" in str(mode.value)):
            found.append(f"line {node.lineno}: {ast.unparse(node)[:80]}")
    return found


def _python_files() -> list[Path]:
    """The course's own Python files: the engine, its tests, tools, benchmarks and CI's."""
    folders = ("src", "tests", "tools", "benchmarks", ".ci")
    return [p for folder in folders for p in sorted((ROOT / folder).rglob("*.py"))] + [ROOT / "conftest.py"]


def test_files_are_read_and_written_as_utf8_which_windows_does_not_assume():
    """Python on Windows (3.10 to 3.14) reads and writes text in the system's code page (cp1252 in
    Western Europe) unless told: a notebook or README read so gets its non-ASCII characters wrong
    (the release's test failed so, run in that encoding). Every file the course, its tests and
    tools read or write as text names UTF-8, in the Python files and in the lessons' cells."""
    from IPython.core.inputtransformer2 import TransformerManager

    as_python = TransformerManager().transform_cell  # a cell as the kernel reads it (%magics made calls)
    unnamed = {}
    for path in _python_files():
        unnamed[path.relative_to(ROOT).as_posix()] = _text_io_without_an_encoding(path.read_text(encoding="utf-8"))
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "solutions").glob("*.ipynb")):
        cells = nbformat.read(path, as_version=4).cells
        for number, cell in enumerate(cells):
            if cell.cell_type == "code":
                where = f"{path.relative_to(ROOT).as_posix()}, cell {number}"
                unnamed[where] = _text_io_without_an_encoding(as_python(cell.source))
    assert len(unnamed) > 300, "the files and cells were not found"
    assert not {where: calls for where, calls in unnamed.items() if calls}, "give encoding='utf-8'"


def test_python_lines_fit_in_120_characters():
    # The width the code is written to: two files side by side on a laptop's screen.
    files = _python_files()
    too_long = [f"{path.relative_to(ROOT).as_posix()}:{number} ({len(line)})" for path in files
                for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
                if len(line) > 120]
    assert len(files) > 50 and not too_long, f"lines over 120 characters: {too_long}"


def test_the_check_for_an_unnamed_encoding_finds_one():
    found = _text_io_without_an_encoding(
        "open(p)\nopen(p, 'rb')\nopen(p, mode='w', encoding='utf-8')\nPath(p).read_text()\n"
        "Path(p).open('w')\np.write_bytes(b'')\ntextforms.write_text(notebook)\np.write_text(s, encoding='utf-8')\n"
        "open(p, 'a')\np.open(mode='rb')\n")
    assert found == ["line 1: open(p)", "line 4: Path(p).read_text()", "line 5: Path(p).open('w')",
                     "line 9: open(p, 'a')"]
