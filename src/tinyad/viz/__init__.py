"""Pictures and widgets for the lessons; the engine never imports them.

- ``tinyad.viz.drawing``: ``draw(root)``, the graph as a Graphviz picture;
- ``tinyad.viz.stepper``: ``BackwardStepper(root)``, lesson 02's widget that steps the walk;
- ``tinyad.viz.progressbar``: ``progress(steps, desc)``, a training loop's progress bar.

They need the course's packages (graphviz, ipywidgets, tqdm, IPython), which
``from tinyad import Value, Tensor`` does not.
"""

from tinyad.viz.drawing import draw
from tinyad.viz.progressbar import progress
from tinyad.viz.stepper import BackwardStepper

__all__ = ["draw", "BackwardStepper", "progress"]
