"""Pictures and widgets for the lessons; the engine never imports them.

- ``tinyad.course.viz.drawing``: ``draw(root)``, the graph as a Graphviz picture;
- ``tinyad.course.viz.stepper``: ``BackwardStepper(root)``, lesson 02's widget that steps the walk;
- ``tinyad.course.viz.progressbar``: ``progress(steps, desc)``, a training loop's progress bar.

They need the course's packages (graphviz, ipywidgets, tqdm, IPython), which
``from tinyad import Value, Tensor`` does not.
"""

from tinyad.course.viz.drawing import draw
from tinyad.course.viz.progressbar import progress
from tinyad.course.viz.stepper import BackwardStepper

__all__ = ["draw", "BackwardStepper", "progress"]
