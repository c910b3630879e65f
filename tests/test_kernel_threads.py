"""The notebooks that measure memory, run while another thread of their kernel allocates.

``tracemalloc`` counts the allocations of every thread in the kernel's process, and in JupyterLab
the kernel is not alone with a cell: after each cell, JupyterLab 4.7's debugger asks the kernel
which modules are loaded, and the kernel's control thread puts that answer together (a few hundred
KiB of lists and dicts) while the next cell runs. Under nbval nothing asks, so a measurement could
pass every test here and fail in a learner's Run All. The lessons therefore keep the least of three
runs, a pause apart (lesson 08's ``least``). Here each notebook that uses ``tracemalloc`` runs with
such a thread: shortly after every cell starts, a few hundred KiB allocated, held a while, freed.
Every cell must still pass.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import build  # noqa: E402  (tools/ is a folder of scripts, not a package)
import nbtools  # noqa: E402
from test_build import ANSI_CODE  # noqa: E402

# Run first in the kernel: after each cell starts, a thread waits up to 80 ms, then allocates what
# the debugger's answer allocates (2,000 small dicts, about 600 KiB), holds it 30 ms and frees it.
ANOTHER_THREAD = '''
import random, threading, time

_answered = []  # one entry a cell: the thread did allocate beside it


def _allocate_beside(info, rng=random.Random(0)):
    delay = rng.uniform(0.0, 0.08)

    def answer():
        time.sleep(delay)
        modules = [{"id": i, "name": f"module_{i}", "path": f"/site-packages/module_{i}.py"}
                   for i in range(2000)]
        time.sleep(0.03)
        _answered.append(len(modules))
        del modules

    threading.Thread(target=answer, daemon=True).start()

get_ipython().events.register("pre_run_cell", _allocate_beside)
'''

MEASURING = sorted(
    path for folder in ("notebooks", "solutions") for path in nbtools.lessons_in(ROOT / folder)
    if any("tracemalloc" in cell.source for cell in nbtools.read(path).cells if cell.cell_type == "code")
)


def test_the_notebooks_that_measure_memory_are_found():
    names = [path.name for path in MEASURING]
    assert "08_memory.ipynb" in names and "10_fusion_devices.ipynb" in names, names


@pytest.mark.parametrize("path", MEASURING, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_memory_measurements_hold_while_another_thread_allocates(path):
    nb = nbtools.read(path)
    ran = sum(1 for cell in nb.cells if cell.cell_type == "code" and cell.source.strip())
    nb.cells.insert(0, nbformat.v4.new_code_cell(ANOTHER_THREAD))
    # Last: the thread allocated beside every cell (a test that had run alone could not fail).
    nb.cells.append(nbformat.v4.new_code_cell(
        f"time.sleep(0.2)\nassert len(_answered) >= {ran}, "
        f"f'the thread allocated beside {{len(_answered)}} of {ran} cells'"))
    build.run(nb, path.parent, timeout=300, allow_errors=True)
    failed = []
    for number, cell in enumerate(nb.cells):  # numbered as the notebook's own, from 1; 0 the thread's
        if cell.cell_type != "code" or nbtools.RAISES_TAG in cell.metadata.get("tags", []):
            continue
        for output in cell.outputs:
            if output.output_type == "error":
                last = ANSI_CODE.sub("", output.traceback[-1] if output.traceback else output.evalue)
                failed.append(f"cell {number} ({cell.source.splitlines()[0][:60]!r}): {last}")
    assert not failed, "\n".join(failed)
