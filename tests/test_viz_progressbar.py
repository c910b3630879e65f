"""progress(): range(steps) with a progress bar."""

from __future__ import annotations

import pytest

from tinyad.course.viz import progress


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
