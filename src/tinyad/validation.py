"""Argument checks shared by the networks, the optimisers, gradcheck, checkpoint, the data sets and
the two engines' constructors (``as_real``: which numbers ``Value`` and ``Tensor`` take), and what
both engines' nodes answer NumPy's functions: a refusal naming the op to write instead
(``instead_of_numpy``, ``numpy_refused``), but for NumPy's operators (``numpy_operator``).

A size that is 0, negative or not a whole number would otherwise surface later as a
ZeroDivisionError in an initialiser or an empty network that returns its input; a
setting (a learning rate, a step, a noise level) that is nan or out of range would
silently corrupt every number computed from it.
"""

from __future__ import annotations

import inspect
import math
import numbers
from typing import Any

import numpy as np


def type_name(x: Any) -> str:
    """The name of ``x``'s type for an error message. A type of another library named as one of
    tinyad's is named with its library: PyTorch's tensor is ``torch.Tensor``, never a bare
    ``Tensor`` that reads as tinyad's own ("must be a Tensor, got Tensor")."""
    cls = type(x)
    library = cls.__module__.partition(".")[0]
    if library != "tinyad" and cls.__name__ in ("Tensor", "Value"):
        return f"{library}.{cls.__name__}"
    return cls.__name__


def a_type_name(x: Any) -> str:
    """``type_name(x)`` with its article: "an int", "an ndarray", "a float", "an MLP"."""
    return with_article(type_name(x))


def with_article(name: str) -> str:
    """``name`` with the article it is read with: "an int", "an ndarray", "a float", "an MLP" (an
    acronym's letters are read out: M is "em")."""
    spoken_vowel = (name[0].lower() in "aeio" or name.startswith("nd")
                    or (name.isupper() and name[0] in "AEFHILMNORSX"))
    return f"{'an' if spoken_vowel else 'a'} {name}"


def check_function(f: Any, who: str) -> None:
    """A TypeError unless ``f`` can be called: where a function belongs, its result (``gradcheck(f(x),
    x)``) would otherwise fail inside ``who``, in Python's words ("'Value' object is not callable")."""
    if not callable(f):
        raise TypeError(
            f"{who} needs a function first, got {a_type_name(f)} ({f!r:.60}): pass the function itself, "
            f"not its result: {who}(f, x), not {who}(f(x), x) (an expression becomes a function with "
            f"lambda: {who}(lambda x: x * 2, x))"
        )


def check_flag(value: Any, name: str) -> bool:
    """``value`` as a bool, or a TypeError naming ``name``: anything but True or False (or a NumPy
    bool) is refused, where Python would take any truthy value ("relu", 0.5) as True."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, got {value!r}")


def check_count(n: Any, name: str, least: int = 1) -> None:
    """``n`` is a whole number ``>= least``, or a ValueError naming ``name`` and ``n``."""
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < least:
        raise ValueError(f"{name} must be an int >= {least}, got {n!r}")


def check_seed(seed: Any, who: str) -> int | None:
    """A network's ``seed``: None, or a whole number >= 0 as a Python int (a NumPy integer too),
    or a TypeError or ValueError naming ``who``'s seed (a float passed where an argument before it
    belongs lands here, as in ``MLP(2, [4, 1], 0.01)``)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"{who}'s seed must be None or an int >= 0, got {type_name(seed)} {seed!r:.60}")
    if seed < 0:
        raise ValueError(f"{who}'s seed must be None or an int >= 0, got {seed}")
    return int(seed)


def layer_sizes(nouts: Any, who: str) -> list[int]:
    """The output sizes of an MLP's layers as a list: at least one, each an int >= 1."""
    if isinstance(nouts, (int, np.integer)) or not hasattr(nouts, "__iter__"):
        raise TypeError(f"{who}'s nouts must be a list of layer sizes, like [16, 1], got {nouts!r}")
    sizes = list(nouts)
    if not sizes:
        raise ValueError(f"{who} needs at least one layer: nouts is empty")
    for k, n in enumerate(sizes):
        check_count(n, f"{who}'s nouts[{k}]")
    return sizes


def check_setting(name: str, value: Any, low: float, high: float | None = None,
                  low_allowed: bool = True) -> float:
    """``value`` as a float, if it is a finite real number with ``low <= value < high``.

    ``low < value`` when not ``low_allowed``; no upper bound when ``high`` is None. Anything
    else is a TypeError or ValueError naming ``name`` and ``value``.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a number, got {value!r}")
    bounds = f"{'>=' if low_allowed else '>'} {low:g}" + (f" and < {high:g}" if high is not None else "")
    try:
        number = float(value)
    except OverflowError:  # an int beyond any float
        raise ValueError(f"{name} must be a finite number {bounds}, got an int of "
                         f"{len(str(abs(value)))} digits") from None
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number {bounds}, got {value}")
    too_low = number < low if low_allowed else number <= low
    if too_low or (high is not None and number >= high):
        raise ValueError(f"{name} must be {bounds}, got {value}")
    return number


def as_real(x: Any, who: str) -> float:
    """``x`` as a float if it is a real number (a ``numbers.Real``: int, float, Fraction, NumPy's).

    Both engines take numbers this way. Anything else is a TypeError (a Decimal too: it is
    not a ``numbers.Real``), and a number beyond any float a ValueError, each naming ``who``.
    """
    if not isinstance(x, numbers.Real):
        shape = getattr(x, "shape", None)  # not .size: PyTorch's is a method
        what = f"an array of size {math.prod(shape)}" if shape is not None else repr(x)
        raise TypeError(f"{who} needs a real number, got {type_name(x)}: {what}")
    try:
        return float(x)
    except OverflowError:
        raise too_large_for_float(x, who) from None


def too_large_for_float(x: numbers.Real, who: str) -> ValueError:
    """The error for a real number (a huge int or Fraction) that no float can hold."""
    shown = f"an int of {len(str(abs(x)))} digits" if isinstance(x, int) else f"{x!r:.40}..."
    return ValueError(f"{who} needs a finite number, got {shown}, too large for a float (beyond "
                      "about 1.8e+308)")


# NumPy's ufunc for each operator that Python reflects onto its right operand, and the method
# Python would call there: ``array + t`` is NumPy's ``np.add(array, t)``, as ``2 + t`` is
# ``t.__radd__(2)``.
REFLECTED_OPERATORS = {
    np.add: "__radd__", np.subtract: "__rsub__", np.multiply: "__rmul__", np.divide: "__rtruediv__",
    np.power: "__rpow__", np.matmul: "__rmatmul__", np.less: "__gt__", np.less_equal: "__ge__",
    np.greater: "__lt__", np.greater_equal: "__le__", np.equal: "__eq__", np.not_equal: "__ne__",
}


def numpy_refused(kind: str, what: str, instead: str, plain: str, library: str = "NumPy") -> TypeError:
    """The error for NumPy (or PyTorch) given a ``kind`` node ("Tensor", "Value") where it would
    compute with its numbers and drop its graph: ``what`` it was asked, the op to write
    ``instead``, and ``plain``, the node's numbers as a constant (``t.data``)."""
    return TypeError(f"{library} cannot follow a {kind}'s graph ({what}): use {instead}, or {plain} that no "
                     "gradient flows through")


def ufunc_name(ufunc: Any, method: str) -> str:
    """How a learner wrote NumPy's call: ``tanh`` for ``np.tanh(v)``, ``add.reduce`` for ``np.add.reduce(t)``."""
    return ufunc.__name__ if method == "__call__" else f"{ufunc.__name__}.{method}"


def numpy_operator(node: Any, ufunc: Any, method: str, inputs: tuple, kwargs: dict) -> str | None:
    """The reflected method of ``node`` that NumPy's call of ``ufunc`` stands for, or None.

    A node's ``__array_ufunc__`` asks: NumPy calls it for ``array + node`` (``np.add(array, node)``),
    which is the node's own ``__radd__``, and for ``np.exp(node)``, which NumPy would compute
    with numbers and no graph. Only an operator with the node on the right, not writing into an
    array (``array += node``), and one the node's class defines, has a method to go on to.
    """
    name = REFLECTED_OPERATORS.get(ufunc)
    if (name is None or method != "__call__" or kwargs or len(inputs) != 2 or inputs[1] is not node
            or getattr(type(node), name, None) in (None, getattr(object, name, None))):
        return None
    return name


# What to write instead of NumPy's function of a node that has no method of that name: the
# operator or method the node needs for it, and the words ({0} is the node, "t" or "v").
OPS_INSTEAD_OF_NUMPY = {
    "sqrt": ("__pow__", "{0} ** 0.5"), "square": ("__pow__", "{0} ** 2"), "power": ("__pow__", "{0} ** n"),
    "maximum": ("relu", "{0}.relu() for np.maximum({0}, 0)"), "dot": ("__matmul__", "{0} @ w"),
    "matmul": ("__matmul__", "{0} @ w"), "add": ("__add__", "{0} + u"), "subtract": ("__sub__", "{0} - u"),
    "multiply": ("__mul__", "{0} * u"), "divide": ("__truediv__", "{0} / u"), "negative": ("__neg__", "-{0}"),
    "expand_dims": ("reshape", "{0}.reshape(...) with the new axis of size 1"),
    "squeeze": ("reshape", "{0}.reshape(...) without the axes of size 1"),
    "where": ("__mul__", "{0} * mask for np.where(mask, {0}, 0), with mask an array of 0s and 1s"),
    "stack": ("__add__", "a list of them (tinyad has no stack or concatenate: combine what is computed "
                         "from each, total = total + loss)"),
}
OPS_INSTEAD_OF_NUMPY["concatenate"] = OPS_INSTEAD_OF_NUMPY["stack"]


# NumPy's functions whose results (an index, a mask, a count, a rounded number) carry no gradient:
# of a node, they are asked of its data.
WITHOUT_GRADIENT = {
    "argmax", "argmin", "argsort", "argwhere", "nonzero", "flatnonzero", "count_nonzero", "unique", "bincount",
    "isnan", "isinf", "isfinite", "sign", "floor", "ceil", "trunc", "rint", "round",
}


def instead_of_numpy(kind: type, name: str, node: str) -> str:
    """The op of a ``kind`` node ``node`` to write instead of NumPy's function ``name``: its method of
    that name (``t.sum(...)`` for ``np.sum``, ``v.tanh()`` for ``np.tanh``), NumPy's function of its
    data where the result has no gradient anyway (``np.argmax(t.data)``), another op it has
    (``t ** 0.5`` for ``np.sqrt``; no ``@`` for a Value), or a few of its ops."""
    method = getattr(kind, name, None)
    if not name.startswith("_") and callable(method) and not hasattr(method, "instead"):  # an op
        takes = len(inspect.signature(method).parameters) > 1  # beyond self: an axis, a shape
        return f"{node}.{name}({'...' if takes else ''})"
    if name in WITHOUT_GRADIENT:
        return f"np.{name}({node}.data) (its result has no gradient to follow)"
    needed, words = OPS_INSTEAD_OF_NUMPY.get(name, (None, ""))
    if needed and hasattr(kind, needed):
        return words.format(node)
    return f"its own ops ({node}.exp(), {node}.tanh(), {node} ** 2)"


def no_call(module: Any) -> TypeError:
    """The error for a module, of either engine, that defines no ``__call__`` (its output)."""
    return TypeError(f"{type(module).__name__} must define __call__(self, x), which computes its output "
                     "(a PyTorch module's forward(self, x) is __call__ here)")
