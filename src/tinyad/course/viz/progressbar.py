"""A training loop's progress bar: ``progress(steps, desc)`` is ``range(steps)`` with a bar."""

from __future__ import annotations

import numbers
from typing import Iterator

from IPython.display import display
from tqdm.auto import tqdm
from tqdm.notebook import tqdm as notebook_tqdm


def progress(steps: int, desc: str) -> Iterator[int]:
    """``range(steps)`` with a progress bar labelled ``desc``.

    In a notebook the bar is a widget. It is displayed once and its display is
    updated when the loop ends, so a saved notebook shows the final "100%" even
    where widgets do not render (a viewer, nbval's text comparison), not the "0%"
    it had when first shown. Outside a notebook the bar is text on stderr.
    """
    if isinstance(steps, bool) or not isinstance(steps, numbers.Integral) or steps < 0:
        raise ValueError(f"progress(steps, desc) needs steps, a whole number >= 0, got {steps!r}")
    if not isinstance(desc, str):
        raise TypeError(f"progress(steps, desc) needs desc, the bar's label, as a str, got {desc!r}")
    if not issubclass(tqdm, notebook_tqdm):  # tqdm.auto picks a subclass in a notebook
        yield from tqdm(range(steps), desc=desc)
        return
    bar = tqdm(range(steps), desc=desc, display=False)
    shown = display(bar.container, display_id=True)
    try:
        yield from bar
    finally:  # also when the loop stops early
        shown.update(bar.container)
