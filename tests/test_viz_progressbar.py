"""progress(): range(steps) with a progress bar."""

from __future__ import annotations

from tinyad.course.viz import progress


def test_progress_outside_a_notebook_is_range_with_a_text_bar(capsys):
    assert list(progress(5, "training")) == [0, 1, 2, 3, 4]
    err = capsys.readouterr().err
    assert "training" in err and "5/5" in err and "100%" in err


def test_progress_stops_early_without_complaint(capsys):
    for step in progress(10, "early"):
        if step == 2:
            break
    assert "early" in capsys.readouterr().err
