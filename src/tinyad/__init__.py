"""tinyad: automatic differentiation from one number to an array engine.

The scalar engine (``Value``) and the array engine (``Tensor``) share one graph
walk, ``tinyad.graph``.
"""

from tinyad.gradcheck import gradcheck
from tinyad.graph import topo_sort
from tinyad.scalar import Value
from tinyad.tensor import Tensor, checkpoint, no_grad
from tinyad.viz import draw

__all__ = ["Value", "topo_sort", "gradcheck", "draw", "Tensor", "no_grad", "checkpoint"]
