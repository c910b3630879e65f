"""The array engine: ``Tensor``, stable functions, networks, and memory tools.

A ``Tensor`` is one node holding a whole array: NumPy's, or one of any library that follows
the Python array API standard (``tensor.backend``). Its backward pass is the same walk as the
scalar engine's (``tinyad.graph``).
"""

from tinyad.tensor import functional, nn
from tinyad.tensor.checkpoint import checkpoint
from tinyad.tensor.gradients import sum_to_shape
from tinyad.tensor.grad_mode import no_grad
from tinyad.tensor.tensor import Tensor

__all__ = ["Tensor", "no_grad", "checkpoint", "sum_to_shape", "functional", "nn"]
