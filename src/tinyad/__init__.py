"""tinyad: automatic differentiation from one number to an array engine.

The scalar engine (``Value``) and the array engine (``Tensor``) share one graph
walk, ``tinyad.graph``. Importing them needs numpy and array_api_compat (which finds the
namespace of another array library's arrays, ``tinyad.tensor.backend``) and nothing else:
``draw`` (the course's picture of a graph, ``tinyad.course.viz``) is imported the first time it
is accessed (``from tinyad import draw`` imports it, and with it graphviz, ipywidgets, tqdm and
IPython), and names the missing package when the course's packages are not installed.
"""

from tinyad.gradcheck import gradcheck
from tinyad.graph import topo_sort
from tinyad.scalar import Value
from tinyad.tensor import Tensor, checkpoint, no_grad

__all__ = ["Value", "topo_sort", "gradcheck", "draw", "Tensor", "no_grad", "checkpoint"]


def __getattr__(name: str):
    """``tinyad.draw``, imported from ``tinyad.course.viz`` when first asked for."""
    if name != "draw":
        raise AttributeError(f"module 'tinyad' has no attribute {name!r}")
    try:
        from tinyad.course.viz import draw
    except ImportError as error:
        raise ImportError(
            f"tinyad.draw needs the package {error.name!r}, which is not installed; "
            "python -m pip install -e . installs the course's packages"
        ) from error
    return draw
