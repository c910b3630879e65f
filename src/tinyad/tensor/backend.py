"""The array library under a Tensor, and the few needs the array API standard does not cover.

A ``Tensor`` keeps its array in the library it came from: NumPy for lists and numbers, or
any library that follows the Python array API standard (``array_api_strict``, PyTorch,
JAX, CuPy, ...). The ops compute with that library's *namespace*, ``xp`` (``xp.exp``,
``xp.sum(a, axis=..., keepdims=...)``, ``xp.matmul``), which ``array_api_compat`` finds
from an array; each node keeps it (``t.xp``), so an op reads it from its parents instead
of asking again.

Where the standard has no function, each need has one small helper here, NumPy's way first: an
unbuffered scatter-add (``scatter_add``), an assignment to the entries an index picks that JAX's
arrays, which cannot change, also take (``assign``), NumPy's floating-point error state
(``errstate``), a copy in NumPy for reading (``to_numpy``), a quick test that an array is finite
(``all_finite``), the check and message for arrays that cannot meet in one op (``same_place``,
``cannot_combine``), the message for float64 on a device that holds none
(``check_holds_float64``, Apple's GPU in PyTorch), the message for a node where an array
belongs, most often a ``.data`` set by hand to a Tensor (``node_for_an_array``), and what no
Tensor holds as its ``.data`` (``held_by_no_tensor``, ``check_data_set_by_hand``: anything but
an array of float32 or float64, ``is_float_dtype``).

Outside this module the engine asks three things only of an array's library. Whether it is
NumPy's (``xp is NUMPY``, where ``NUMPY`` is the namespace below, not the ``numpy`` module; or
the array's type, ``np.ndarray``): for NumPy's fast paths (no device check for two NumPy
arrays, a NumPy dtype's kind read directly), NumPy's own conversions (its 0-d result made an
array again, a seed gradient made with ``np.array``), the conversions only another library
needs (a number, a list or an index array put into that library and onto its device), the
refusal of a device other than the CPU for NumPy's parameters, and a note on an error only
another library raises. Whether a PyTorch tensor is a node of PyTorch's own graph
(``in_torch_graph``): such a tensor is refused where it would enter tinyad's (as data, as a
gradient set by hand or given to backward). And its name (``library``), for a Tensor's repr and an
error message.
"""

from __future__ import annotations

import gc
import math
from types import ModuleType
from typing import Any, ContextManager

import array_api_compat
import numpy as np

from tinyad.graph import is_node
from tinyad.tensor import numpy_namespace
from tinyad.validation import a_type_name, type_name, with_article

# NumPy's own namespace follows the standard from NumPy 2.1 (pyproject's floor): a NumPy
# array's namespace is NumPy's (tinyad.tensor.numpy_namespace: NumPy, with the functions every
# step calls bound to its compiled code), known without asking: the engine's hot path never
# calls array_namespace for NumPy.
NUMPY: ModuleType = numpy_namespace


def namespace(array: Any) -> ModuleType:
    """The array API namespace of ``array``: NumPy's at once, any other library's from array_api_compat."""
    if type(array) is np.ndarray or isinstance(array, np.generic):
        return NUMPY
    try:
        return array_api_compat.array_namespace(array)
    except TypeError:
        if is_node(array):  # an op given a node where it computes with arrays: named, on the way to the error
            raise node_for_an_array(array) from None
        raise


def node_for_an_array(node: Any) -> TypeError:
    """The error for a node (a Tensor, a Value) where the engine computes with an array.

    An op hands its inputs' ``.data`` to the library, so a node there is most often a ``.data`` set
    by hand to a Tensor (``p.data = p - lr * p.grad``), said so where the node is another node's
    ``.data``; else the node was given in place of its array.
    """
    if held_as_data(node):
        return set_by_hand(held_by_no_tensor(node))
    return TypeError(f"got {a_type_name(node)} where an array belongs: an op computes with arrays (a Tensor's .data)")


# How many nodes held_as_data asks, the refused one counted: mse's target and rnn_step's weights,
# behind the op's own intermediates, are the seventh of them; one more to spare.
NEAREST_ASKED = 8


def held_as_data(node: Any) -> bool:
    """Whether ``node``, or one of the nodes it was computed from (``NEAREST_ASKED`` in all), is the
    ``.data`` of another node. An op that computes with such a ``.data`` makes a
    Tensor of its own, held by none (``pred.data - target.data`` in ``mse``), which the library then
    refuses: its inputs are asked too. Asked only on the way to an error: one look through every
    object the garbage collector tracks, for all of them at once (a few milliseconds in a long
    session)."""
    asked, waiting = {}, [node]  # by id: a node reached twice (mse's diff) is asked once
    while waiting and len(asked) < NEAREST_ASKED:
        candidate = waiting.pop(0)
        if id(candidate) not in asked:
            asked[id(candidate)] = candidate
            waiting.extend(getattr(candidate, "parents", ()))
    return any(is_node(holder) and id(holder.data) in asked for holder in gc.get_referrers(*asked.values()))


TENSOR_AS_DATA = "a Tensor (p.data = p - lr * p.grad makes one: write p.data -= lr * p.grad)"


def set_by_hand(what: str) -> TypeError:
    """The error for a tensor whose ``.data`` was set by hand to ``what`` (words: "a list ([1, 2])")."""
    return TypeError(
        f"a tensor's data was set by hand (t.data = ...) to {what}: a Tensor holds an array of "
        "float32 or float64, so set t.data to one (np.asarray(numbers, dtype=float), in its shape)"
    )


# The dtypes a Tensor holds, by name; as NumPy's scalar types (what NumPy's arithmetic on a 0-d
# array of a Tensor's gives: a NumPy scalar of its dtype); and as NumPy's dtypes.
FLOAT_NAMES = ("float32", "float64")
FLOAT_SCALARS = tuple(getattr(np, name) for name in FLOAT_NAMES)
NUMPY_FLOAT_DTYPES = tuple(np.dtype(name) for name in FLOAT_NAMES)


def is_float_dtype(dtype: Any) -> bool:
    """Whether ``dtype`` (any library's, or its name) is one a Tensor holds: float32 or float64."""
    return dtype_name(dtype) in FLOAT_NAMES


def held_by_no_tensor(data: Any) -> str:
    """``data`` in words ("an array of int64") if no Tensor holds such data, else "".

    A Tensor holds an array of float32 or float64: not a Tensor, a Python number or a list, nor an
    array or a NumPy scalar of another dtype (ints or bools would take their gradient as ints: 0).
    NumPy's float32 and float64 scalars pass: NumPy's arithmetic on a 0-d array gives one
    (``p.data = p.data - lr * p.grad``).
    """
    if isinstance(data, FLOAT_SCALARS):
        return ""
    if type_name(data) == "Tensor":
        return TENSOR_AS_DATA
    if not is_array(data) or isinstance(data, np.generic):
        return f"{a_type_name(data)} ({data!r:.40})"
    if not is_float_dtype(data.dtype):
        return f"an array of {dtype_name(data.dtype)}"
    return ""


def check_data_set_by_hand(*tensors: Any) -> None:
    """A TypeError for the first of ``tensors`` whose ``.data`` was set by hand (``t.data = ...``) to
    what no Tensor holds (``held_by_no_tensor``).

    Asked only where such data shows, never on the way of every op: where an op's result or
    gradient is not what its parents' arrays give, and on the way to an error whose words (the
    library's, or a dtype refused) would hide the slip. Where a node made by hand (``new_node``)
    computed that data from float parents, its op is named instead (``made_by_its_own_op``).
    """
    for t in tensors:
        what = held_by_no_tensor(t.data)
        if what and made_by_its_own_op(t):
            raise TypeError(
                f"the output of {t.op!r} holds {what}, as its op made it: an op's output holds an array "
                "of float32 or float64, computed from its parents' arrays in their dtype, which its "
                "gradient takes too (a mask as numbers: x.xp.astype(mask, x.dtype))"
            ) from None
        if what:
            raise set_by_hand(what) from None  # the library's error, if any, said nothing of it


def made_by_its_own_op(t: Any) -> bool:
    """Whether what ``t`` holds came from its op, a node made by hand (``new_node`` with a rule of
    one's own, as lesson 10's fused node is), rather than being set by hand: every parent holds
    float data (else the engine's ops pass a parent's on) and the rule is not the engine's."""
    rule, parents = getattr(t, "backward_rule", None), getattr(t, "parents", ())
    module = getattr(rule, "__module__", None) or ""
    return (rule is not None and bool(parents) and not module.startswith("tinyad.")
            and all(not held_by_no_tensor(parent.data) for parent in parents))


def in_torch_graph(x: Any) -> bool:
    """Whether ``x`` is a PyTorch tensor that requires grad: every op tinyad computed with it would
    be recorded in PyTorch's own graph too (and such a tensor will not print through NumPy)."""
    return array_api_compat.is_torch_array(x) and x.requires_grad


def refuse_torch_graph(x: Any, who: str, recorded: str) -> None:
    """A TypeError, where ``who`` (``"Tensor()"``, ``"backward(grad=...)"``) got a PyTorch tensor
    that requires grad: PyTorch would record ``recorded`` in a graph of its own."""
    if in_torch_graph(x):
        raise TypeError(f"{who} got {a_type_name(x)} that requires grad: PyTorch would record {recorded} in a "
                        "graph of its own. Pass it .detach()")


def is_array(x: Any) -> bool:
    """Whether ``x`` is an array of a library that follows the array API standard (NumPy's too)."""
    return array_api_compat.is_array_api_obj(x)


def library(xp: ModuleType) -> str:
    """The name of the library behind a namespace: "numpy", "torch", "array_api_strict", "cupy", "jax"."""
    if xp is NUMPY:
        return "numpy"
    return "jax" if xp.__name__ == "jax.numpy" else xp.__name__.rpartition(".")[2]


def device(array: Any, xp: ModuleType) -> Any:
    """The device ``array`` lives on ("cpu" for NumPy's)."""
    if xp is NUMPY:
        return "cpu"
    return array_api_compat.device(array)


def same_device(a: Any, b: Any, xp: ModuleType) -> bool:
    """Whether two arrays of the namespace ``xp`` live on one device (NumPy's always do)."""
    return xp is NUMPY or device(a, xp) == device(b, xp)


def describe(array: Any, xp: ModuleType, with_device: bool = False) -> str:
    """``array`` in words: "a numpy array", "an array_api_strict array", "a torch tensor on cuda:0".

    The words are those of the array's own library, even where ``xp`` (a Tensor's) is another's.
    """
    if is_array(array):
        xp = namespace(array)
    name = library(xp)
    words = f"{with_article(name)} {'tensor' if name == 'torch' else 'array'}"
    return f"{words} on {device(array, xp)}" if with_device else words


def check_holds_float64(xp: ModuleType, place: Any, made: str, instead: str) -> None:
    """A TypeError saying so where ``xp``'s arrays on the device ``place`` cannot be float64.

    Apple's GPU in PyTorch ("mps") holds no float64, nor do JAX's arrays unless told to, and the
    library's own words came from deep inside the engine. Asked on the way to an error only,
    where the library refused an array the engine made float64: ``made`` says what made it so,
    ``instead`` what to write. The standard's inspection API answers; a library without it is
    taken to hold float64 (its own error goes on).
    """
    try:
        held = xp.__array_namespace_info__().dtypes(device=place, kind="real floating")
    except (AttributeError, TypeError, ValueError):
        return
    if "float64" not in held:
        if library(xp) == "jax":  # JAX holds float64 once told, before its first array
            instead += "; or turn JAX's float64 on first, jax.config.update('jax_enable_x64', True)"
        raise TypeError(f"{made}, and {library(xp)}'s arrays on {place} cannot hold float64: {instead}") from None


def cannot_combine(a: Any, xp_a: ModuleType, b: Any, xp_b: ModuleType, op: str) -> TypeError:
    """The error for two arrays of different libraries, or on different devices, meeting in ``op``."""
    own_a = namespace(a) if is_array(a) else xp_a
    own_b = namespace(b) if is_array(b) else xp_b
    with_device = own_a is own_b
    replaced = ""
    if own_a is not xp_a or own_b is not xp_b:
        # A Tensor's namespace is found once, from its data: t.data = array of another library
        # leaves it stale.
        replaced = (" (a Tensor's .data was replaced by an array of another library: make a new "
                    "Tensor instead, or convert the array into the Tensor's library)")
    return TypeError(
        f"cannot combine {describe(a, xp_a, with_device)} and {describe(b, xp_b, with_device)} in "
        f"'{op}'{replaced}: put both in one library and on one device first (Tensor(xp.asarray(data, "
        "device=...)))"
    )


def share_place(a: Any, b: Any) -> bool:
    """Whether Tensors ``a`` and ``b`` hold arrays of one library on one device (NumPy's all live on
    the CPU: no device to ask for, and every op of a NumPy step asks)."""
    return a.xp is b.xp and (a.xp is NUMPY or same_device(a.data, b.data, a.xp))


def same_place(op: str, *tensors: Any) -> None:
    """A TypeError naming both, unless ``tensors`` (Tensors: each holds ``data`` and its namespace
    ``xp``) hold arrays of one library on one device; a TypeError naming the argument, if one is
    not a Tensor at all (a layer given a weight's ``.data``)."""
    try:
        first = tensors[0]
        for t in tensors[1:]:
            if not share_place(first, t):
                raise cannot_combine(first.data, first.xp, t.data, t.xp, op)
    except AttributeError:  # asked only once an argument has no namespace: every op comes here
        not_tensors = [k for k, t in enumerate(tensors) if not hasattr(t, "xp")]
        if not not_tensors:
            raise
        k = not_tensors[0]
        t = tensors[k]
        raise TypeError(
            f"{op} needs Tensors, but its argument {k} is {a_type_name(t)} ({t!r:.60}): "
            "pass the Tensor itself (a parameter, not its .data), so that its gradient is filled"
        ) from None


def one_dtype_for_products(op: str, *tensors: Any) -> None:
    """A TypeError naming the dtypes, where the library's matrix product will not mix them.

    NumPy and the array API standard promote float32 @ float64 to float64; PyTorch's ``@``
    refuses ("expected m1 and m2 to have the same dtype"), which read as a shape error.
    """
    xp = tensors[0].xp
    if xp is NUMPY or library(xp) != "torch":
        return
    dtypes = [dtype_name(t.dtype) for t in tensors]
    if len(set(dtypes)) > 1:
        check_data_set_by_hand(*tensors)  # no Tensor holds ints: a .data set by hand, not a mix of floats
        raise TypeError(
            f"{op} got torch tensors of dtypes {', '.join(dtypes)}: PyTorch's matrix product takes "
            "one dtype (NumPy's promotes to the wider); make them one, with Tensor(data, dtype=...)"
        )


def dtype_name(dtype: Any) -> str:
    """A dtype's plain name, whatever the library: "float32" for NumPy's, torch's or array_api_strict's."""
    return str(dtype).rpartition(".")[2]


def float_dtype(dtype: Any, xp: ModuleType) -> Any:
    """``dtype`` (NumPy's, its name, or a library's own) as ``xp``'s float32 or float64, or a TypeError."""
    try:
        name = np.dtype(dtype).name
    except TypeError:  # a dtype of another library, such as torch.float32
        name = dtype_name(dtype)
    if not is_float_dtype(name):
        raise TypeError(f"Tensor dtype must be float32 or float64, got {name}")
    return getattr(xp, name)


def to_numpy(array: Any) -> np.ndarray:
    """``array`` as a NumPy array: itself, a view of a CPU array (DLPack), or a copy from a device.

    A number (or a NumPy scalar) becomes a 0-d array.
    """
    if type(array) is np.ndarray:
        return array
    if isinstance(array, np.generic) or not is_array(array):
        return np.asarray(array)
    try:
        return np.from_dlpack(array)
    except (BufferError, RuntimeError, TypeError, ValueError):  # not in the CPU's memory
        return np.from_dlpack(array_api_compat.to_device(array, "cpu"))


def all_finite(array: Any, xp: ModuleType) -> bool:
    """Whether every entry of a float array is finite: no nan, no inf.

    NumPy's way first: the dot product of the array with itself, one BLAS call that makes no
    array of its own, is finite only if every entry is. Only where it is not (a nan or an inf,
    or squares beyond the float type) are the entries asked one by one, as other libraries'
    are at once (``xp.isfinite``).
    """
    if xp is NUMPY and math.isfinite(np.vdot(array, array)):
        return True
    return bool(xp.all(xp.isfinite(array)))


def errstate(**settings: str) -> ContextManager[Any]:
    """NumPy's floating-point error state (``np.errstate(**settings)``), for NumPy's arrays and
    for libraries that compute with NumPy underneath (array_api_strict); the others (PyTorch,
    CuPy) warn about no overflow or division by zero, so for them it changes nothing."""
    return np.errstate(**settings)


def assign(target: Any, index: Any, values: Any) -> Any:
    """``target[index] = values``, and the array that holds the result: ``target`` itself, or where a
    library's arrays cannot change (JAX's, which have no item assignment) a new one
    (``target.at[index].set(values)``)."""
    if type(target) is np.ndarray or library(namespace(target)) != "jax":
        target[index] = values
        return target
    return target.at[index].set(values)


def scatter_add(target: Any, index: Any, values: Any) -> Any:
    """``target[index] += values``, where a position picked twice adds twice (unbuffered), and the
    array that holds the result: ``target`` itself, changed in place, or JAX's new one.

    ``target[index] += values`` itself reads all of ``target[index]`` before it writes, so a
    position that ``index`` repeats would get one of its values, not their sum. NumPy:
    ``np.add.at``. PyTorch: ``index_put_(..., accumulate=True)`` on the positions the index
    picks. CuPy: ``cupyx.scatter_add``. JAX: ``target.at[index].add(values)``. The standard has
    no such function, so any other library is a TypeError naming it.
    """
    if type(target) is np.ndarray:
        np.add.at(target, index, values)
        return target
    xp = namespace(target)
    name = library(xp)
    if not can_scatter_add(xp):
        raise no_scatter_add(name)
    if name == "jax":
        return target.at[index].add(values)
    if name == "torch":
        import torch

        # Which flat position each picked entry is: index an arange of target's shape.
        positions = torch.arange(target.numel(), device=target.device).reshape(target.shape)[index]
        # Those positions are a flat view's, which only a contiguous tensor has: any other (a
        # transposed one's zeros_like) is added into as a contiguous copy, then copied back.
        flat = target.contiguous()
        flat.view(-1).index_put_((positions.reshape(-1),), values.reshape(-1), accumulate=True)
        if flat is not target:
            target.copy_(flat)
    else:  # CuPy
        import cupyx

        cupyx.scatter_add(target, index, values)
    return target


def can_scatter_add(xp: ModuleType) -> bool:
    """Whether ``scatter_add`` knows the library of namespace ``xp``: the one list of them."""
    return xp is NUMPY or library(xp) in ("torch", "cupy", "jax")


def no_scatter_add(name: str) -> TypeError:
    """The error for a library without a scatter-add that tinyad knows, named ``name``."""
    return TypeError(
        f"the gradient of indexing that may pick an entry twice (integer arrays) needs an "
        f"unbuffered scatter-add, which the array API standard does not have and tinyad does "
        f"not know for {name}; index with slices, integers or a boolean mask instead"
    )
