"""pytest set-up that holds wherever pytest is started from.

pyproject.toml names nbval's sanitiser file relative to the repository root; nbval opens
it relative to the working folder. So a learner grading from another folder
(``pytest --nbval-lax ../exercises/01_value.ipynb``) would see every cell fail with
FileNotFoundError. Here a relative path that does not exist from the working folder is
taken from the repository root instead.

It also loads ``tinyad.course.score_table``, the plugin that ends ``pytest --nbval-lax exercises/``
with a table of the exercises: passed, failed (with the check's hint), in progress, not started
or not run.
pytest reads this file only for notebooks inside the course; for one outside it, name the plugin
(``-p tinyad.course.score_table``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["tinyad.course.score_table"]


def pytest_configure(config: pytest.Config) -> None:
    """Point nbval at the sanitiser file in the repository when it is named relatively; refuse to
    test an engine other than this folder's (another clone's, installed in a shared environment), and
    have every Python the tests start import this folder's too."""
    import tinyad

    engine, own = Path(tinyad.__file__).resolve().parent, (Path(__file__).parent / "src").resolve()
    if (own / "tinyad").is_dir() and not engine.is_relative_to(own):
        raise pytest.UsageError(
            f"this Python imports tinyad from {engine}, not from {own}: the tests would check that "
            "engine. Install this folder (python -m pip install -e .) or run with PYTHONPATH=src"
        )
    if (own / "tinyad").is_dir():
        # nbval's kernels start in each notebook's folder, and some tests run pytest in a copy of the
        # course: from there a relative PYTHONPATH=src names no engine, and they would import whichever
        # tinyad is installed, checking the lessons against another clone's engine.
        os.environ["PYTHONPATH"] = os.pathsep.join([str(own), *filter(None, [os.environ.get("PYTHONPATH")])])
    name = getattr(config.option, "nbval_sanitize_with", None)
    if name and not Path(name).is_absolute() and not Path(name).exists():
        config.option.nbval_sanitize_with = str(config.rootpath / name)
