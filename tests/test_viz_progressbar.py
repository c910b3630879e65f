"""progress(): range(steps) with a progress bar."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

from tinyad.course.viz import progress

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
import build  # noqa: E402  (tools/ is a folder of scripts, not a package)


def test_progress_outside_a_notebook_is_range_with_a_text_bar(capsys):
    assert list(progress(5, "training")) == [0, 1, 2, 3, 4]
    err = capsys.readouterr().err
    assert "training" in err and "5/5" in err and "100%" in err


def test_progress_of_no_steps_is_an_empty_range(capsys):
    assert list(progress(0, "nothing yet")) == []
    assert "nothing yet" in capsys.readouterr().err


def test_progress_stops_early_without_complaint(capsys):
    for step in progress(10, "early"):
        if step == 2:
            break
    assert "early" in capsys.readouterr().err


@pytest.mark.parametrize("steps, desc, words", [
    (-1, "x", r"steps, a whole number >= 0, got -1"),  # ran no step, silently
    (3.0, "x", r"steps, a whole number >= 0, got 3\.0"),
    (None, "x", r"got None"),
    (2, 5, r"desc, the bar's label, as a str, got 5"),
])
def test_progress_names_a_bad_argument(steps, desc, words):
    with pytest.raises((TypeError, ValueError), match=words):
        list(progress(steps, desc))


def test_progress_in_a_notebook_is_one_widget_whose_saved_text_says_where_the_loop_ended():
    # nbval does not compare a bar's output, so only a kernel of its own sees this path.
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("from tinyad.course.viz import progress\n"
                                  "list(progress(5, 'training'))"),
        nbformat.v4.new_code_cell("for step in progress(10, 'early'):\n    if step == 2:\n        break"),
    ])
    build.run(nb, build.ROOT, timeout=60)
    whole, early = (cell.outputs for cell in nb.cells)

    # Shown once, as a widget, with no text bar on stderr beside it.
    assert [output.output_type for output in whole] == ["display_data", "execute_result"], whole
    assert [output.output_type for output in early] == ["display_data"], early
    assert "application/vnd.jupyter.widget-view+json" in whole[0].data
    assert whole[1].data["text/plain"] == "[0, 1, 2, 3, 4]"
    # The text a viewer shows was updated when the loop ended, not left at "0%".
    assert whole[0].data["text/plain"].startswith("training: 100%"), whole[0].data["text/plain"]
    assert "| 5/5 [" in whole[0].data["text/plain"]
    assert early[0].data["text/plain"].startswith("early:  20%"), early[0].data["text/plain"]
    assert "| 2/10 [" in early[0].data["text/plain"]
