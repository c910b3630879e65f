"""Print pip constraints that hold every requirement of the course and its test extra to its floor.

    python .ci/oldest_versions.py > oldest.txt
    python -m pip install -e ".[test]" -c oldest.txt

"numpy>=2.1" becomes "numpy==2.1.*" (the oldest release series pyproject.toml allows, with its
last fixes), "pytest>=8" becomes "pytest==8.0.*", and "matplotlib>=3.8.4" stays that release:
"matplotlib==3.8.4". A requirement's environment marker is kept. CI installs these in a fresh
environment of the oldest Python it finds, so a floor that no longer installs, or no longer
works beside the rest, fails there rather than on a learner's machine.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10: the backport the test extra installs
    import tomli as tomllib

PYPROJECT = Path(__file__).resolve().parent.parent / "pyproject.toml"
FLOOR = re.compile(r"\s*([A-Za-z0-9_.\-]+)\s*>=\s*([0-9.]+)\s*(;.*)?")


def oldest(requirement: str) -> str:
    """The constraint that holds ``requirement`` ("name>=floor", with or without a marker) to its floor."""
    match = FLOOR.fullmatch(requirement)
    if match is None:
        raise ValueError(f"{requirement!r}: every requirement of the course is 'name>=floor', so that "
                         "CI can install its floor")
    name, floor, marker = match.groups()
    parts = floor.split(".")
    pin = floor if len(parts) >= 3 else ".".join(parts + ["0"] * (2 - len(parts))) + ".*"
    return f"{name}=={pin}" + (f"; {marker[1:].strip()}" if marker else "")


def constraints(pyproject: dict) -> list[str]:
    """One constraint for each of the course's requirements and its test extra's."""
    project = pyproject["project"]
    return [oldest(requirement) for requirement in project["dependencies"] + project["optional-dependencies"]["test"]]


if __name__ == "__main__":
    print("\n".join(constraints(tomllib.loads(PYPROJECT.read_text(encoding="utf-8")))))
