"""Lesson 10's GPU cells, run on a machine without a GPU: pretend GPUs stand in.

The lesson's stored outputs come from a machine without a GPU, so under nbval the cells that find
one, check a step there against NumPy and time it never take their GPU branch. Here lesson 10 runs
with its ``find_gpu`` answering first array_api_strict's device that holds no float64, as a Mac's
GPU (PyTorch's ``"mps"``) holds none, then PyTorch's CPU in float64, through the namespace and the
device string a CUDA GPU takes: the GPU step runs on both, with NumPy's numbers in the dtype the
device computes in (the first refuses any float64 on the way), each batch timed with the device's
synchronise.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import nbformat
import pytest

from array_libraries import strict_device  # tests/array_libraries.py

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import build  # noqa: E402  (tools/ is a folder of scripts, not a package)
import nbtools  # noqa: E402
from test_build import ANSI_CODE  # noqa: E402

LESSON = ROOT / "notebooks" / "10_fusion_devices.ipynb"


def pretend_gpu(key: str, name: str, module: str, device: str, dtype: str) -> str:
    """Source that makes the lesson's ``find_gpu`` answer a pretend GPU: ``name``, the namespace
    ``module``, the device ``device`` (Python source, in it), its synchronise (each call counted in
    ``synchronised[key]``) and ``dtype``."""
    return f"""
import {module}

synchronised = globals().get("synchronised", {{}})


def find_gpu():
    def synchronise():
        synchronised[{key!r}] = synchronised.get({key!r}, 0) + 1

    return {name!r}, {module}, {device}, synchronise, {dtype!r}
"""


MAC_NAME, CUDA_NAME = "a pretend Mac GPU (array_api_strict, no_float64)", "a pretend CUDA GPU (PyTorch's CPU)"
LIKE_A_MAC = pretend_gpu("mps-like", MAC_NAME, "array_api_strict", 'array_api_strict.Device("no_float64")', "float32")
LIKE_CUDA = pretend_gpu("cuda-like", CUDA_NAME, "array_api_compat.torch", '"cpu"', "float64")


def is_cell(cell: nbformat.NotebookNode, text: str) -> bool:
    return cell.cell_type == "code" and text in cell.source


def text_of(cell: nbformat.NotebookNode) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")


def test_lesson_10s_gpu_step_runs_where_a_gpu_computes_in_float32_or_in_float64():
    pytest.importorskip("torch", reason="PyTorch's CPU stands in for a CUDA GPU here; not installed")
    strict_device("no_float64")  # the Mac's stand-in (array_api_strict 2.6 and later), else skipped
    nb = nbtools.read(LESSON)
    (finder,) = [cell for cell in nb.cells if is_cell(cell, "def find_gpu(")]
    (step,) = [i for i, cell in enumerate(nb.cells) if is_cell(cell, "gpu = find_gpu()  # defined")]
    # The Mac stand-in replaces the lesson's finder where the lesson first asks it, in the same cell;
    # the CUDA one comes after the step cell, which then runs a second time.
    assert finder.source.count("\ngpu = find_gpu()\n") == 1, finder.source
    finder.source = finder.source.replace("\ngpu = find_gpu()\n", LIKE_A_MAC + "\n\ngpu = find_gpu()\n")
    again = nbformat.v4.new_code_cell(nb.cells[step].source)
    nb.cells[step + 1:step + 1] = [nbformat.v4.new_code_cell(LIKE_CUDA), again]
    counted = nbformat.v4.new_code_cell("print(sorted(synchronised.items()))")
    nb.cells.append(counted)
    build.run(nb, LESSON.parent, timeout=300, allow_errors=True)

    failed = [f"{cell.source.splitlines()[0][:60]!r}: {ANSI_CODE.sub('', output.traceback[-1])}"
              for cell in nb.cells if cell.cell_type == "code"
              and nbtools.RAISES_TAG not in cell.metadata.get("tags", [])
              for output in cell.outputs if output.output_type == "error"]
    assert not failed, "\n".join(failed)
    found = text_of(finder)
    assert f"GPU found: {MAC_NAME}, computing in float32" in found, found
    for cell, name, dtype, tolerance in ((nb.cells[step], MAC_NAME, "float32", "1e-04"),
                                         (again, CUDA_NAME, "float64", "1e-12")):
        lines = text_of(cell).splitlines()
        assert lines[0].startswith(f"{name}: loss, 4 gradients and 4 updated parameters equal NumPy's {dtype} to "
                                   f"{tolerance} (largest difference "), lines
        timed = [line for line in lines if line.startswith("batch ")]
        assert [line.split(":")[0] for line in timed] == ["batch    32", "batch   512", "batch  4096"], lines
        assert all(f": {name} " in line and " us measured, " in line and " us by the model; NumPy on this CPU " in line
                   for line in timed), lines
        assert lines[-1].startswith("by the model the GPU overtakes this CPU from a batch of about "), lines
    # Each timed call synchronised: fastest() runs every step at least 4 times a group, 10 groups.
    counts = dict(ast.literal_eval(text_of(counted)))
    assert counts.keys() == {"mps-like", "cuda-like"} and min(counts.values()) >= 3 * 4 * 10, counts
