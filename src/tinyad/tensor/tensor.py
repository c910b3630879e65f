"""``Tensor``: a whole array as one node of the graph.

A ``Tensor`` is to an array what ``Value`` is to a number: ``data`` (a float32 or
float64 array), ``grad`` (``None`` until a gradient arrives, then an array of
the same shape and dtype), its ``parents``, and a ``backward_rule``. The array is NumPy's
for lists and numbers, or of any library that follows the Python array API standard
(``array_api_strict``, PyTorch, JAX, CuPy), kept in its library and on its device; ``xp`` is
that library's namespace (``tensor.backend``), and every op computes with it. Every op has
the scalar engine's three beats:

1. compute the forward array with the namespace of its inputs (``x.xp.tanh(x.data)``);
2. make the output node from its operand, with its parents (in operand order), its op name
   and its rule: ``x.new_node(data, parents=(x,), op="tanh", backward_rule=tanh_backward)``;
3. the backward rule, written just below: a function ``rule(out)`` that adds ``out.grad`` times
   the local derivative into each parent that needs it, through ``sum_to_shape``
   wherever broadcasting may have stretched a parent.

The ops live in modules named for their kind, each op's forward and backward side
by side: ``binary.py`` (``+ - * / ** @``, with broadcasting), ``elementwise.py``
(each entry on its own, such as ``exp`` and ``tanh``), ``reductions.py`` (over axes, such
as ``sum`` and ``max``), ``shapes.py`` (moving entries, such as ``reshape`` and indexing)
and ``functional.py`` (softmax, losses and layers as single fused nodes). The methods
below call the first four: this module imports ``binary``, ``elementwise``, ``reductions``
and ``shapes``, and they never import it back at run time (their ``Tensor`` import is for
type hints only). An op there makes its output through its operand (``new_node``), so it
needs no name for the class; in ``t + 2`` the operator makes the 2 a Tensor first
(``operand``), so the ops get Tensors. ``functional``, ``checkpoint`` and ``nn``, built on
``Tensor``, do import this module (``Tensor``, and in functional and nn ``constant``), and
this module imports none of them.

``Tensor(...)`` is the one constructor: a learner's call makes a leaf, from data that
``conversion.py`` checks and converts; ``new_node`` passes it
the keyword-only ``parents``, ``op``, ``backward_rule`` and ``saved`` (what the rule needs
from the forward pass) to make an op's output, and nothing else sets a node's fields. The
output records its graph only when recording is on (it is off inside ``no_grad()``) and a
parent requires a gradient; otherwise it is a leaf that requires none.

Decisions worth knowing:

- Integer and boolean data becomes float64 (or the ``dtype`` asked for: float32 or float64,
  by NumPy's dtype, its name or the library's own), and so does
  any real number NumPy keeps as an object (an int beyond int64, a ``Fraction``): each
  is taken as ``Value`` takes it. Anything else (a ``Decimal``, ``None``) is a
  ``TypeError`` naming the entry; string and complex data one naming the dtype. A float32 or
  float64 array (of any library) is used as it is, without a copy.
- The arrays of one op must be of one library and on one device: anything else is a
  ``TypeError`` naming both. Python numbers (and lists of them) join any library, on the
  other operand's device. An op's parents must be Tensors: a node made by hand (``new_node``)
  with an array or a number among its parents is a ``TypeError`` naming which, and so is, in
  ``backward``, a node whose ``parents`` were set by hand afterwards.
- A ``.data`` set by hand (``t.data = ...``) to what a Tensor does not hold (a Tensor, which
  ``p.data = p - lr * p.grad`` makes; a list; an array of ints) is named where it shows, never by
  a check that every op pays: where a library refuses a Tensor (NumPy's and PyTorch's hooks,
  array_api_strict's reading of ``_array``), which asks whether the Tensor, or one of the nearest
  it was computed from, is another's ``.data``; where bce compares its targets (not in ``<``, which
  pprint asks of every pair of Tensors it sorts); where a number or a constant takes a dtype of
  ints; at ``exp``'s limits, worked out once per dtype; at a node whose data NumPy made a scalar
  of another dtype (the sum of ints, bools or float16); and where a gradient of floats reaches it.
  Ops that keep ints (``-t``, reshapes, indexing) give ints back unasked: in NumPy their sum names
  them; in another library, whose sum is an array, nothing asks until ints meet floats, or the
  library refuses them in its own words.
- Data given to ``Tensor(...)`` must be finite: nan or inf raise ``ValueError``.
  ``exp`` that would overflow raises ``OverflowError``; ``log`` of entries <= 0
  raises ``ValueError``; dividing by an array with zeros raises
  ``ZeroDivisionError``. Other overflow (``1e200 * 1e200``) follows IEEE as in NumPy, in
  forward and in backward alike: the gradient of ``x * 1e300 * 1e300`` or of ``log`` at 5e-324
  is inf, with NumPy's warning (as in PyTorch). ``**`` refuses an inf gradient by name, and so
  does ``/`` for its divisor's (``1 / x`` at 1e-200); an optimiser's ``step()`` refuses a
  gradient that is not finite.
- A leaf's ``grad`` is an array of its own, never shared with another node, so
  it may be changed in place (``p.grad *= 0.5``). A leaf that requires grad may
  call ``backward`` itself; its gradient accumulates like any leaf's.
- During backward a rule adds into a gradient (``parent.accumulate(g)``): ``t.grad = ...`` where
  another node's share has arrived already is a ``TypeError`` at that line, not a lost share.
- NumPy's functions of a Tensor (``np.sum(t)``, ``np.exp(t)``, ``np.array(t)``) would compute with
  its array and drop its graph: each is a ``TypeError`` that names the Tensor's own op to write
  instead (``t.sum(...)``), and so is PyTorch's (``torch.exp(t)``). Their operators are not:
  ``array + t`` is ``t.__radd__(array)``.
- A Tensor copies (``copy.deepcopy(model)`` keeps the best weights while training goes on) and
  pickles, with its data, gradient and graph; its library's namespace is found again from the data.
- A Python number or an integer array next to a Tensor takes the Tensor's dtype,
  so ``2 * t`` stays float32 when ``t`` is; a float array keeps its own dtype and
  the library's promotion decides the result's.
- An op keeps references to its inputs' arrays for backward. Changing an input's
  array in place between forward and backward changes the gradient: that is the
  caller's responsibility, as in NumPy-based engines generally.
"""

from __future__ import annotations

import math
import numbers
from types import ModuleType
from typing import Any, Callable, Iterator, NoReturn, Sequence, Union

import numpy as np

from tinyad import graph
from tinyad.validation import (
    a_type_name, check_flag, instead_of_numpy, numpy_operator, numpy_refused, type_name, ufunc_name,
)
from tinyad.tensor import binary, elementwise, grad_mode, reductions, shapes
from tinyad.tensor.conversion import as_float_array, kind_of_list, too_large
from tinyad.tensor.backend import (
    FLOAT_SCALARS, NUMPY, TENSOR_AS_DATA, all_finite, cannot_combine, check_data_set_by_hand, check_holds_float64,
    describe, device, dtype_name, held_as_data, in_torch_graph, is_array, library, namespace, node_for_an_array,
    refuse_torch_graph, same_device, set_by_hand, to_numpy,
)

ArrayLike = Union["Tensor", np.ndarray, float, int, Sequence]
Rule = Callable[["Tensor"], None]


class Tensor:
    """An array with a gradient, its parents and the rule that feeds them."""

    __slots__ = (
        "data", "xp", "_grad", "requires_grad", "parents", "op", "label", "backward_rule", "saved",
        "__weakref__",
    )

    def __init__(
        self,
        data: Any,
        requires_grad: bool = False,
        dtype: Any = None,
        label: str = "",
        *,
        parents: tuple[Tensor, ...] = (),
        op: str = "",
        backward_rule: Rule | None = None,
        saved: Any = None,
    ) -> None:
        self._grad: Any = None
        self.label: str = label
        if backward_rule is None:  # a leaf: data from outside, checked and converted
            if parents or op or saved is not None:
                raise TypeError(
                    "Tensor(...) got parents, op or saved but no backward_rule: an op's output "
                    "needs the rule that feeds its parents (backward_rule=...)"
                )
            self.data: Any = as_float_array(data, dtype)
            self.xp: ModuleType = namespace(self.data)
            self.requires_grad: bool = check_flag(requires_grad, "requires_grad")
            self.parents: tuple[Tensor, ...] = ()
            self.op: str = ""
            self.backward_rule: Rule | None = None
            self.saved: Any = None
            return
        # An op's output. Its parents must be Tensors (a node made by hand with ``new_node`` may
        # be given an array or a number instead); it is recorded if recording is on and a parent
        # needs a gradient, or if the op asks with requires_grad=True (checkpoint does: what its
        # function uses shows only later).
        if not isinstance(parents, tuple):  # parents=(x) is x itself: a tuple of one is (x,)
            raise _parents_not_a_tuple(parents, op)
        record = False
        for parent in parents:  # a plain loop, not any(...): this runs for every op
            if not isinstance(parent, Tensor):
                raise _not_a_parent(parent, parents, op)
            if parent.requires_grad:
                record = True
        # The library computed ``data`` from float arrays, so it needs no checks, and its
        # namespace is its parents' (the op saw to it that they share one).
        if type(data) is np.ndarray:
            self.xp = NUMPY
        else:
            # Not an array of NumPy's: another library's, a NumPy scalar (a 0-d op's result), or what
            # an op made of a .data set by hand (a Tensor, a list joined to a list, a float, or a NumPy
            # scalar of ints: the sum of an array of ints, whose gradient would be ints too).
            if isinstance(data, Tensor) or (parents and parents[0].xp is NUMPY and not isinstance(data, FLOAT_SCALARS)):
                check_data_set_by_hand(*parents)
                if isinstance(data, Tensor):  # no parent's: an op of one's own computed it with Tensors
                    raise _tensor_as_output(op)
            self.xp = parents[0].xp if parents else namespace(data)
            if self.xp is NUMPY:
                data = np.asarray(data)  # NumPy's result of a 0-d op is a scalar, not an array
        self.data = data
        mode = grad_mode.state
        if mode.enabled and (record or requires_grad):
            self.requires_grad = True
            self.parents, self.op, self.backward_rule, self.saved = parents, op, backward_rule, saved
            if mode.recorded is not None:  # checkpoint is recomputing a block: tell it
                mode.recorded.append(self)
        else:
            self.requires_grad = False
            self.parents, self.op, self.backward_rule, self.saved = (), "", None, None

    # -- what it is -----------------------------------------------------------

    @property
    def shape(self) -> tuple[int, ...]:
        try:
            shape = self.data.shape
        except AttributeError:  # t.data = [1, 2], set by hand
            check_data_set_by_hand(self)
            raise
        return shape if type(shape) is tuple else tuple(shape)  # torch.Size as a plain tuple

    @property
    def ndim(self) -> int:
        try:
            return self.data.ndim
        except AttributeError:  # t.data = [1, 2], set by hand
            check_data_set_by_hand(self)
            raise

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def dtype(self) -> Any:
        """The dtype of the data, in its library's terms (``np.float64``, ``torch.float32``)."""
        try:
            return self.data.dtype
        except AttributeError:  # t.data = 0.3, set by hand
            check_data_set_by_hand(self)
            raise

    @property
    def device(self) -> Any:
        """The device the data lives on ("cpu" for NumPy's)."""
        return device(self.data, self.xp)

    def __len__(self) -> int:
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor: it has no axis to count or iterate; use item() (what reads "
                            "nested lists, such as torch.tensor(t), asks it of each entry: give it t.data)")
        return self.data.shape[0]

    def __bool__(self) -> bool:
        """The truth of a one-element tensor, as in NumPy; any other size is ambiguous."""
        if self.size != 1:
            raise ValueError(
                f"the truth value of a Tensor of shape {self.shape} is ambiguous: compare "
                "its item() for one element, or use t.data.any() / t.data.all()"
            )
        return bool(self.xp.reshape(self.data, ()))

    # A node hashes by identity: tinyad.graph keeps nodes in sets, which find a node by its
    # identity before they would ask ==. So == is free to refuse, rather than be NumPy's
    # elementwise comparison or answer a silent False to ``t == 1``.
    __hash__ = object.__hash__

    def __eq__(self, other: Any) -> bool:
        raise TypeError(
            "tinyad Tensors have no == or !=: compare their arrays, t.data == other.data (no gradient "
            "flows through a comparison); `a is b` asks whether two tensors are the same node. "
            "`p in params`, params.index(p) and params.remove(p) compare with == too: use "
            "any(p is q for q in params), or a set of tensors, which finds them by identity"
        )

    __ne__ = __eq__

    # Nor has a Tensor an order, or a number or an array NumPy may take from it: Python's and
    # NumPy's own answers ("'>' not supported", an array of objects from np.dot) say nothing of
    # what to write instead.

    def __lt__(self, other: Any) -> bool:
        raise TypeError(
            "tinyad Tensors have no <, <=, > or >=: compare their arrays, t.data > 0 (a mask, which "
            "indexes a tensor: t[t.data > 0]), or t.item() for one element; no gradient flows "
            "through a comparison"
        )

    __le__ = __gt__ = __ge__ = __lt__

    def __float__(self) -> float:
        raise TypeError(
            "float() of a Tensor: use t.item() for the number in a one-element tensor (no gradient "
            "flows through it)"
        )

    def __int__(self) -> int:
        raise TypeError(
            "int() of a Tensor: use int(t.item()) for the number in a one-element tensor (no gradient "
            "flows through it)"
        )

    def __round__(self, ndigits: int | None = None) -> NoReturn:
        raise TypeError("round() of a Tensor: round(t.item(), 4) rounds its number (no gradient flows through it)")

    # INSTEAD_OF_METHODS, after the class, says what to write instead of each method a Tensor lacks
    # and a learner brings from NumPy or PyTorch (tolist, astype, view, ...): a loop there sets
    # each as a method that refuses with those words.

    def __abs__(self) -> NoReturn:
        raise TypeError(f"abs() of a Tensor: tinyad has no abs; {INSTEAD_OF_METHODS['abs']}")

    @property
    def _array(self) -> NoReturn:
        # array_api_strict reads its arrays' _array: a Tensor there is most often a .data set by hand
        # to one, named, not in the library's "'Tensor' object has no attribute '_array'". (A property,
        # not __getattr__, which slowed every attribute read by 5% in the small MLP's step.) An
        # AttributeError, as for any attribute a Tensor lacks: hasattr and inspect.getmembers ask it.
        raise AttributeError(*node_for_an_array(self).args)

    def __array__(self, dtype: Any = None, copy: Any = None) -> NoReturn:
        # Asked for np.array(t), and for each Tensor of a list given to NumPy or matplotlib: a
        # training loop's losses kept as Tensors (losses.append(loss)), then plotted or averaged.
        raise _numpy_refused("an array made of a Tensor, or of a list of Tensors: np.array(ts), np.mean(ts), "
                             "plt.plot(ts)", "tinyad's ops (t @ w, t.sum()), [loss.item() for loss in losses] "
                             "for a list of one-number Tensors", tensor=self)

    # NumPy's functions compute with arrays and would lose the graph, so each is refused by name,
    # with the Tensor's own op to write instead. NumPy's operators are the exception: ``array + t``
    # is ``np.add(array, t)``, which goes on to ``t.__radd__(array)`` as Python's ``2 + t`` does.

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        reflected = numpy_operator(self, ufunc, method, inputs, kwargs)
        if reflected:
            return getattr(self, reflected)(inputs[0])
        name = ufunc_name(ufunc, method)
        if "out" in kwargs:  # array += t
            raise _numpy_refused(f"np.{name} of a Tensor, written into an array", "a = a + t, a Tensor", tensor=self)
        raise _numpy_refused(f"np.{name} of a Tensor", instead_of_numpy(Tensor, name, "t"), tensor=self)

    def __array_function__(self, func: Any, types: Any, args: tuple, kwargs: dict) -> Any:
        if func in (np.shape, np.ndim, np.size) and args and args[0] is self:  # no graph needed
            return func(self.data, *args[1:], **kwargs)
        where = func.__module__.replace("numpy", "np", 1)  # np, or np.linalg for np.linalg.norm
        instead = instead_of_numpy(Tensor, func.__name__, "t")
        raise _numpy_refused(f"{where}.{func.__name__} of a Tensor", instead, tensor=self)

    @classmethod
    def __torch_function__(cls, func: Any, types: Any, args: tuple = (), kwargs: Any = None) -> Any:
        # PyTorch asks this of its functions given a Tensor (torch.exp(t)), which would compute with
        # its array and drop its graph. Its operators turn the TypeError into NotImplemented, so
        # torch_array + t still goes on to t.__radd__.
        name = getattr(func, "__name__", "")
        where = getattr(func, "__module__", None) or "torch"
        instead = instead_of_numpy(Tensor, name, "t").replace("np.", f"{where}.")
        # A torch.Tensor's operator (torch_array + t) or method has no module, or torch._tensor's (**, //):
        # PyTorch turns its TypeError into NotImplemented and goes on to t.__radd__, so no error comes of
        # it, and who holds the Tensor (a look through every object) is asked only for a function's.
        operator = getattr(func, "__module__", None) in (None, "torch._tensor")
        given = None if operator else next((arg for arg in args if isinstance(arg, Tensor)), None)
        raise _numpy_refused(f"{where}.{name} of a Tensor", instead, by="PyTorch", tensor=given)

    def __format__(self, spec: str) -> str:
        """``f"{loss:.4f}"`` formats a one-element tensor's number; ``f"{t}"`` is the repr."""
        if not spec:
            return repr(self)
        if self.size != 1:
            raise TypeError(
                f"format {spec!r} of a Tensor of shape {self.shape}: only a one-element tensor formats "
                "as a number (format t.data with NumPy for an array)"
            )
        return format(self.item(), spec)

    def __iter__(self) -> Iterator[Tensor]:
        """The tensors along the first axis, each a node: ``for row in t``."""
        for i in range(len(self)):  # len() of a 0-d tensor raises TypeError
            yield self[i]

    def __repr__(self) -> str:
        check_data_set_by_hand(self)
        body = np.array2string(self.numpy(), precision=4, separator=", ", prefix="Tensor(")
        extra = ", requires_grad=True" if self.requires_grad else ""
        if dtype_name(self.dtype) != "float64":
            extra += f", dtype={dtype_name(self.dtype)}"
        if self.xp is not NUMPY:
            extra += f", in {library(self.xp)} on {self.device}"
        return f"Tensor({body}{extra})"

    def item(self) -> float:
        """The single number in a one-element tensor, as a Python float."""
        if self.size != 1:
            raise ValueError(f"item() needs a tensor with one element, got shape {self.shape}")
        return float(self.xp.reshape(self.data, ()))

    def numpy(self) -> np.ndarray:
        """The data as a NumPy array: NumPy's array itself (not a copy); another library's
        shared through DLPack where it is in the CPU's memory, else copied from its device."""
        return to_numpy(self.data)

    def detach(self) -> Tensor:
        """A new leaf sharing the same data: the graph behind ``self`` is cut off."""
        return Tensor(self.data)

    # copy.deepcopy(model) and pickle (the best model kept during training, or saved): every field
    # but the namespace ``xp``, a module, which neither can copy; it is found again from the data.

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in Tensor.__slots__ if name not in ("xp", "__weakref__")}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self.xp = namespace(self.data)

    # -- what the ops ask of a tensor: their output, their other operand --------

    def new_node(
        self, data: Any, *, parents: tuple[Tensor, ...], op: str, backward_rule: Rule, saved: Any = None,
    ) -> Tensor:
        """An op's output, a node of this tensor's kind: ``data`` computed from ``parents`` by ``op``,
        and the ``backward_rule`` that feeds them (with ``saved``, what the rule needs from forward).

        The counterpart of ``new_leaf``: an op makes its output from its operand
        (``x.new_node(data, parents=(x,), op="tanh", backward_rule=tanh_backward)``), so the op
        modules never import this one. It is recorded only when recording is on and a parent
        requires a gradient; otherwise it is a leaf that requires none.
        """
        return Tensor(data, parents=parents, op=op, backward_rule=backward_rule, saved=saved)

    def operand(self, other: ArrayLike) -> Tensor:
        """The other operand of an op with this tensor, as a Tensor: itself, or a constant.

        ``t + 2`` and ``2 + t`` both come here first, so the ops of ``binary.py`` get two Tensors.
        Numbers and integer arrays take this tensor's dtype; Python's numbers and lists belong to
        no library, so they join this tensor's, on its device; an array stays in its own library
        (the op then refuses it if that is not this tensor's).
        """
        if isinstance(other, Tensor):
            return other
        if not isinstance(other, (numbers.Real, np.ndarray, list, tuple)) and not is_array(other):
            if graph.is_node(other):  # a Value: the two engines' graphs do not join
                raise TypeError(
                    f"a Tensor and {a_type_name(other)} cannot be combined: use Tensor(v.data) "
                    "for a constant, or make both Values"
                )
            raise TypeError(
                f"a Tensor op needs a Tensor, a NumPy array or a real number as its other operand "
                f"(or an array of another library that follows the array API standard), got "
                f"{type(other).__name__}"
            )
        if isinstance(other, numbers.Real):
            try:
                finite = math.isfinite(other)
            except OverflowError:  # an int beyond any float
                finite = False
            if not finite:
                shown = other if not isinstance(other, int) else f"an int of {len(str(abs(other)))} digits"
                raise ValueError(f"an operand of a Tensor op must be finite, got {shown}")
        if isinstance(other, (numbers.Real, list, tuple)):
            takes_dtype = isinstance(other, numbers.Real) or kind_of_list(other) in "biu"
        elif isinstance(other, np.bool_):  # a number, as Python's bool is (NumPy does not say so)
            return constant(bool(other), self, self.dtype)
        else:
            xp = namespace(other)
            integral = ("bool", "integral")
            takes_dtype = other.dtype.kind in "biu" if xp is NUMPY else xp.isdtype(other.dtype, integral)
        try:
            return constant(other, self, self.dtype if takes_dtype else None)
        except TypeError:  # a number takes this tensor's dtype, which is no float's: .data set by hand
            check_data_set_by_hand(self)
            raise

    # -- arithmetic, with NumPy broadcasting on both sides (binary.py) ----------
    # The other operand becomes a Tensor here (``operand``): the ops get two Tensors.

    def __add__(self, other: ArrayLike) -> Tensor:
        return binary.add(self, self.operand(other))

    def __radd__(self, other: ArrayLike) -> Tensor:
        return binary.add(self.operand(other), self)

    def __sub__(self, other: ArrayLike) -> Tensor:
        return binary.sub(self, self.operand(other))

    def __rsub__(self, other: ArrayLike) -> Tensor:
        return binary.sub(self.operand(other), self)

    def __mul__(self, other: ArrayLike) -> Tensor:
        return binary.mul(self, self.operand(other))

    def __rmul__(self, other: ArrayLike) -> Tensor:
        return binary.mul(self.operand(other), self)

    def __truediv__(self, other: ArrayLike) -> Tensor:
        return binary.div(self, self.operand(other))

    def __rtruediv__(self, other: ArrayLike) -> Tensor:
        return binary.div(self.operand(other), self)

    def __pow__(self, exponent: ArrayLike) -> Tensor:
        return binary.power(self, self.operand(exponent))

    def __rpow__(self, base: ArrayLike) -> Tensor:
        return binary.power(self.operand(base), self)

    def __matmul__(self, other: ArrayLike) -> Tensor:
        """``self @ other`` with NumPy's matmul rules (1-D, 2-D, batched)."""
        return binary.matmul(self, self.operand(other))

    def __rmatmul__(self, other: ArrayLike) -> Tensor:
        return binary.matmul(self.operand(other), self)

    # In-place operators make a new node, as ``t = t - x`` does (``loss += term`` sums a loss).
    # On a parameter, PyTorch's update ``p -= lr * p.grad`` would leave the model as it was:
    # refused, by name.

    def __iadd__(self, other: ArrayLike) -> Tensor:
        _refuse_in_place_on_a_parameter(self, "+=")
        return self + other

    def __isub__(self, other: ArrayLike) -> Tensor:
        _refuse_in_place_on_a_parameter(self, "-=")
        return self - other

    def __imul__(self, other: ArrayLike) -> Tensor:
        _refuse_in_place_on_a_parameter(self, "*=")
        return self * other

    def __itruediv__(self, other: ArrayLike) -> Tensor:
        _refuse_in_place_on_a_parameter(self, "/=")
        return self / other

    # -- elementwise functions (elementwise.py) -------------------------------

    def __neg__(self) -> Tensor:
        return elementwise.neg(self)

    def exp(self) -> Tensor:
        """``e ** x`` elementwise; OverflowError where it would be inf."""
        return elementwise.exp(self)

    def log(self) -> Tensor:
        """The natural log elementwise; ValueError if any entry is <= 0."""
        return elementwise.log(self)

    def tanh(self) -> Tensor:
        """``tanh(x)`` elementwise."""
        return elementwise.tanh(self)

    def relu(self) -> Tensor:
        """``max(x, 0)`` elementwise."""
        return elementwise.relu(self)

    def sigmoid(self) -> Tensor:
        """``1 / (1 + e ** -x)`` elementwise, in a form that never overflows."""
        return elementwise.sigmoid(self)

    def softplus(self) -> Tensor:
        """``log(1 + e ** x)`` elementwise, in a form that never overflows."""
        return elementwise.softplus(self)

    def sin(self) -> Tensor:
        """``sin(x)`` elementwise."""
        return elementwise.sin(self)

    def cos(self) -> Tensor:
        """``cos(x)`` elementwise."""
        return elementwise.cos(self)

    # -- reductions and shapes (reductions.py, shapes.py) ----------------------

    def sum(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """The sum over ``axis`` (all axes when None)."""
        return reductions.sum(self, axis, keepdims)

    def mean(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """The mean over ``axis`` (all axes when None)."""
        return reductions.mean(self, axis, keepdims)

    def max(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """The maximum over ``axis``; tied entries share the gradient evenly."""
        return reductions.max(self, axis, keepdims)

    def min(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Tensor:
        """The minimum over ``axis``; tied entries share the gradient evenly."""
        return reductions.min(self, axis, keepdims)

    def reshape(self, *shape: Any) -> Tensor:
        """The same numbers in a new shape: ``t.reshape(2, 3)`` or ``t.reshape((2, 3))``."""
        return shapes.reshape(self, *shape)

    def transpose(self, *axes: Any) -> Tensor:
        """The axes permuted (reversed when none are given)."""
        return shapes.transpose(self, *axes)

    @property
    def T(self) -> Tensor:
        """The transpose: all axes reversed."""
        return shapes.transpose(self)

    def __getitem__(self, index: Any) -> Tensor:
        """``t[index]``: basic, integer-array and boolean-mask indexing, as in NumPy."""
        return shapes.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> NoReturn:
        raise TypeError(
            "t[index] = ...: a Tensor's entries are not assigned, since its graph could not follow: "
            "change its array, t.data[index] = ... (no gradient flows through that), or make a new "
            "tensor with ops"
        )

    # -- backward -------------------------------------------------------------

    def backward(self, grad: ArrayLike | None = None, retain_graph: bool = False) -> None:
        """Fill ``grad`` of every leaf this tensor depends on, by the chain rule.

        A single-number output seeds itself with 1; any other needs ``grad``, an
        array of its own shape. Leaf gradients accumulate across calls. Unless
        ``retain_graph=True``, every interior node lets go of its parents, saved
        buffers and gradient as soon as its rule has run, so the graph's memory is
        freed during the walk, and walking it again raises ``RuntimeError``.
        """
        retain_graph = check_flag(retain_graph, "retain_graph")
        if self.backward_rule is freed_backward:
            raise walked_twice(self)
        if not self.requires_grad:
            raise not_recorded()
        if grad is None:
            if self.size != 1:
                raise RuntimeError(
                    f"backward() on an output of shape {self.shape} needs grad=, an array of "
                    "that shape: only a single-number output can seed itself with 1"
                )
            seed = self.xp.ones_like(self.data)
        else:
            seed = _seed(grad, self)
        try:
            with grad_mode.walking():  # a rule adds into a gradient: t.grad = ... is refused until the end
                for node in graph.walk(self, seed):
                    if node.parents and not retain_graph:
                        node.release()
        except (AttributeError, TypeError):  # parents set by hand, after the op made the node?
            check_parents(self)  # if so, an error that names them
            raise

    # -- what the walk asks of a node (tinyad.graph.Node) ------------------------

    @property
    def grad(self) -> Any:
        """The gradient that backward has added up here: an array of the tensor's shape, or ``None``."""
        return self._grad

    @grad.setter
    def grad(self, value: Any) -> None:
        # During backward a rule adds into a gradient (accumulate); set with = (or to None) where
        # another node's share is already in it, it would drop that share without a word.
        if self._grad is not None and value is not self._grad and grad_mode.state.walking:
            raise _gradient_replaced(self)
        self._grad = value

    def zero_grad(self) -> None:
        """Forget the gradient: a Tensor's empty gradient is ``None``."""
        self._grad = None

    def has_grad(self) -> bool:
        """Whether a gradient has arrived since the last ``zero_grad``."""
        return self._grad is not None

    def accumulate(self, grad: Any, fresh: bool = False) -> None:
        """Add ``grad`` (an array of this tensor's shape) into this tensor's gradient, in its dtype.

        The engine never changes an interior node's gradient in place, so a rule may pass
        one array on unchanged (``+`` hands ``out.grad`` itself to both operands) and interior
        nodes may share it; a NumPy one is kept read-only, so a rule that writes into
        ``out.grad`` fails there instead of changing another node's gradient. A leaf's
        gradient is the learner's to modify (``p.grad *= 0.5`` to clip it), so a leaf's
        first gradient is copied: it never shares memory with another node's. A rule that
        made ``grad`` for this call alone says so with ``fresh=True`` (``linear``'s and
        ``rnn_step``'s rules do): a leaf keeps it without a copy, an interior node leaves it
        writable. Being its own, a leaf's gradient takes later gradients in place
        (``grad += ...``, as PyTorch's leaves do).
        """
        data = self.data
        if type(grad) is not type(data):  # a NumPy scalar from a 0-d op; or a rule's slip
            check_data_set_by_hand(self)
            _check_gradient_array(grad, self)
            grad = self.xp.asarray(grad)  # a gradient is kept as an array, a 0-d one too
        if grad.shape != data.shape:
            raise RuntimeError(f"a backward rule gave a gradient of shape {grad.shape} to a tensor of "
                               f"shape {data.shape}: a gradient must have its tensor's shape "
                               "(sum_to_shape sums a broadcast gradient back)")
        if grad.dtype != data.dtype:
            check_data_set_by_hand(self)  # an array of ints would take the gradient as ints
            grad = self.xp.astype(grad, data.dtype)  # a new array
            fresh = True
        if self.parents:
            if self._grad is not None:
                self._grad = self._grad + grad  # a new array, this node's alone
                return
            if not fresh and type(grad) is np.ndarray:  # an array a rule may have given another node too
                grad.setflags(write=False)  # setflags: the quickest way to NumPy's flag
            self._grad = grad
        elif self._grad is None:
            self._grad = grad if fresh else self.xp.asarray(grad, copy=True)
        else:
            # A leaf's own array: add in place, as a hand-written loop does (dw += ...). A weight
            # used at every step of an RNN takes T gradients, and a new array for each sum costs
            # an allocation and a pass over fresh memory (benchmarks/README.md, Array engine).
            own = self._grad
            if not is_array(own) or isinstance(own, np.generic) or own.shape != data.shape or own.dtype != data.dtype:
                raise _gradient_set_by_hand(own, self)  # p.grad = ... : the sum would take its shape
            if self.xp is not NUMPY and _not_writable_here(own, self):
                raise _gradient_set_by_hand(own, self)
            try:
                own += grad
                # The same array, added into; where a library's arrays cannot change (JAX's), the
                # standard's += makes a new one, and the gradient is that one.
                self._grad = own
            except (ValueError, RuntimeError) as error:  # p.grad = np.broadcast_to(...), or expand()
                if getattr(getattr(own, "flags", None), "writeable", True) and self.xp is NUMPY:
                    raise
                raise TypeError(f"a tensor of shape {self.shape} has a grad, set by hand (t.grad = ...), "
                                f"that {library(self.xp)} will not write into ({error}): backward adds "
                                "into a leaf's gradient in place. Set a writable array (a copy), or "
                                "t.grad = None") from None

    def new_leaf(self, data: ArrayLike) -> Tensor:
        """A leaf holding ``data`` whose gradient backward fills (gradcheck's nudged inputs).

        ``data`` (a NumPy array, a number) goes into this tensor's library and onto its device.
        """
        if self.xp is not NUMPY and not isinstance(data, Tensor):
            data = self.xp.asarray(data, device=self.device)
        return Tensor(data, requires_grad=True)

    def release(self) -> None:
        """Let go of parents, saved buffers and gradient: the walk has passed this node.

        ``backward`` calls it on each interior node once its rule has run (unless
        ``retain_graph=True``). A later walk through the node raises ``RuntimeError``.
        """
        self.parents = ()
        self.saved = None
        self._grad = None
        self.backward_rule = freed_backward


def _gradient_replaced(t: Tensor) -> TypeError:
    """The error for ``t.grad = ...`` during backward, where ``t`` has a gradient already: a
    backward rule of one's own that sets its parent's gradient instead of adding into it."""
    what = f"the {t.op!r} node" if t.parents else "a leaf"
    return TypeError(
        f"{what} of shape {t.shape} had its gradient replaced (t.grad = ...) during backward, where "
        "another share had arrived already and would be lost: a backward rule adds into each parent's "
        "gradient, parent.accumulate(g)"
    )


# Methods a learner brings from NumPy's arrays or PyTorch's tensors that a Tensor does not have,
# and what to write instead. Each becomes a method that raises AttributeError with those words:
# methods, not a __getattr__, which would slow down every attribute a Tensor reads. Those that
# are NumPy's functions too say what NumPy's function of a Tensor says (validation.instead_of_numpy).
NUMPY_METHODS = ("argmax", "argmin", "sqrt", "square", "squeeze")
INSTEAD_OF_METHODS = {
    "tolist": "t.data.tolist() for its numbers (no gradient flows through them)",
    "astype": "Tensor(t.data.astype(...)) for a new leaf in another dtype (float32 or float64)",
    "copy": "t.detach() for a new leaf with the same numbers",
    "clip": "t.relu() for a floor of 0; tinyad has no clip",
    "clamp": "t.relu() for a floor of 0; tinyad has no clamp",
    "abs": "t.relu() + (-t).relu() is |t|, with slope -1 or 1 (0 at 0)",
    "flatten": "t.reshape(-1)",
    "unsqueeze": "t.reshape(...) with a new axis of size 1",
    "view": "t.reshape(...)",
    "numel": "t.size, a number (not a method)",
    "dim": "t.ndim, a number (not a method)",
    "var": "((t - t.mean()) ** 2).mean()",
    "std": "((t - t.mean()) ** 2).mean() ** 0.5",
    "zero_": "t.zero_grad() to forget its gradient, or t.data[...] = 0 to set its numbers to 0 in place",
    "permute": "t.transpose(...), with the new order of every axis (NumPy's transpose)",
    "clone": "t.detach() for a new leaf with the same numbers, or t * 1 for a node of the graph",
    "requires_grad_": "t.requires_grad = True, on a leaf (Tensor(data, requires_grad=True) makes one)",
    "to": "Tensor(t.data, dtype=...) for a new leaf in another dtype; another device is another "
          "library's array in Tensor(...) (lesson 10)",
    "float": "Tensor(t.data, dtype=np.float32) for a new leaf in float32 (a Tensor is float64 unless told)",
    "double": "Tensor(t.data, dtype=np.float64) for a new leaf in float64",
    "pow": "t ** n",
    "matmul": "t @ w",
    "softmax": "F.softmax(t, axis=...), from tinyad.tensor import functional as F",
}


def _method_instead(name: str, instead: str) -> Callable[..., NoReturn]:
    def refused(self: Tensor, *args: Any, **kwargs: Any) -> NoReturn:
        raise AttributeError(f"a Tensor has no {name}(): {instead}")

    refused.__name__ = refused.__qualname__ = name
    refused.instead = instead  # marks a refusal, not an op: validation.instead_of_numpy looks past it
    return refused


for _name in NUMPY_METHODS:  # before the loop below sets them: the tables answer, not the method
    INSTEAD_OF_METHODS[_name] = instead_of_numpy(Tensor, _name, "t")
for _name, _instead in INSTEAD_OF_METHODS.items():
    setattr(Tensor, _name, _method_instead(_name, _instead))


def _numpy_refused(what: str, instead: str, by: str = "NumPy", tensor: Tensor | None = None) -> TypeError:
    """The error for NumPy (or PyTorch) given a Tensor where it would compute with its array and drop
    its graph; or, where that ``tensor`` is another Tensor's ``.data`` (every op hands its inputs'
    ``.data`` to NumPy, so ``p.sum()`` comes here after ``p.data = p - lr * p.grad``), the error for
    a ``.data`` set by hand to a Tensor. (NumPy called by hand on such a Tensor gets those words
    too: the slip they name is there.)"""
    if tensor is not None and held_as_data(tensor):
        return set_by_hand(TENSOR_AS_DATA)
    return numpy_refused("Tensor", what, instead, "t.data for the array, t.item() for one number, both constants",
                         by)


def _check_gradient_array(grad: Any, node: Tensor) -> None:
    """A TypeError unless ``grad``, given to ``node.accumulate``, is an array (or a NumPy scalar):
    a backward rule computes with arrays (``out.grad``, ``w.data``), and a Tensor there (``w.T``
    for ``w.data.T``), a list or a Python number would fail later, inside the engine."""
    if isinstance(grad, Tensor):
        raise TypeError(
            f"a backward rule gave a Tensor to accumulate (for a tensor of shape {node.shape}): rules "
            "compute with arrays, out.grad and the parents' .data (w.data.T, not w.T), so that "
            "backward records no new graph"
        )
    if not hasattr(grad, "shape") or not hasattr(grad, "dtype"):
        raise TypeError(
            f"a backward rule gave {a_type_name(grad)} ({grad!r:.60}) to accumulate (for a tensor of "
            f"shape {node.shape}): a gradient is an array of the tensor's shape, in its library"
        )


def _tensor_as_output(op: str) -> TypeError:
    """The error for an op's output given a Tensor as its data (``new_node(x * 2, ...)``)."""
    return TypeError(
        f"the output of {op!r} was given a Tensor as its data: an op's output holds an array, computed "
        "from its parents' arrays (x.data * 2, not x * 2), so that its own backward_rule feeds them, "
        "not the graph the Tensor carries"
    )


def _gradient_set_by_hand(own: Any, node: Tensor) -> TypeError:
    """The error for a leaf whose ``grad``, set by hand, is not an array of its shape and dtype, in
    its library: adding into it would broadcast to another shape, extend a list, change its type
    or fail in NumPy's words."""
    if isinstance(own, Tensor):
        what = "a tinyad Tensor (a gradient is its array: t.grad = g.data)"
    elif isinstance(own, np.generic):
        what = f"a NumPy scalar ({type_name(own)}), not an array"
    elif hasattr(own, "shape") and hasattr(own, "dtype"):
        kind = describe(own, namespace(own)) if is_array(own) else a_type_name(own)
        what = f"{kind} of shape {tuple(own.shape)} and dtype {dtype_name(own.dtype)}"
    else:
        what = f"{a_type_name(own)} ({own!r:.40})"
    if in_torch_graph(own):
        what += " that requires grad (in PyTorch's own graph: set grad.detach())"
    elif is_array(own) and namespace(own) is node.xp is not NUMPY and not same_device(own, node.data, node.xp):
        what += f" on {device(own, node.xp)}, where the tensor is on {node.device}"
    return TypeError(
        f"a tensor of shape {node.shape} and dtype {dtype_name(node.dtype)} ({describe(node.data, node.xp)}) "
        f"has a grad that is {what}, set by hand (t.grad = ...): backward adds into a gradient of the "
        "tensor's own shape and dtype, in its library. Set one like that, or t.grad = None to start "
        "from none"
    )


def _not_writable_here(own: Any, node: Tensor) -> bool:
    """Whether a leaf's gradient set by hand, in another library than NumPy, is one backward cannot
    add into: on another device than the leaf, or a PyTorch tensor in PyTorch's own graph."""
    return in_torch_graph(own) or not same_device(own, node.data, node.xp)


def walked_twice(out: Tensor) -> RuntimeError:
    """The error for backward() from an output that an earlier backward() walked and freed."""
    return RuntimeError(
        f"backward() from an output that an earlier backward() already walked (a {out.op!r} "
        "node): that walk freed its graph. In a training loop, compute the output anew each step "
        "(the forward pass inside the loop): a graph holds the activations of the parameters as "
        "they were, and after an update its gradients would belong to neither. To walk the same "
        "graph twice, pass retain_graph=True to the earlier backward() (the leaves' gradients "
        "then add up)"
    )


def not_recorded() -> RuntimeError:
    """The error for backward() from an output that requires no gradient: no graph leads to it."""
    return RuntimeError(
        "backward() on a tensor that does not require grad: no input of the computation had "
        "requires_grad=True, it ran inside no_grad(), or its graph was cut on the way: by a Tensor "
        "made anew from another's .data, or by a node made by hand whose parents leave out the "
        "inputs (new_node(..., parents=()) makes a constant)"
    )


def freed_backward(out: Tensor) -> None:
    """The rule of a released node, reached from a new output: part of its graph is an earlier
    one's, which that graph's backward() freed. Its usual causes each have their own mend, and
    retain_graph=True (which would add the earlier graph's gradients in again) is only one's."""
    raise RuntimeError(
        f"backward() reached a {out.op!r} node of an earlier graph, freed by that graph's "
        "backward(): this output was computed from an output of an earlier step. For a running "
        "total of losses, add loss.item() (a number) rather than the loss; for a state carried "
        "from one step to the next (an RNN's h), carry h.detach(); for a parameter made by an op "
        "(Tensor(w, requires_grad=True) * 0.01 is not a leaf), make the leaf from the result, "
        "Tensor(w * 0.01, requires_grad=True). Only for two outputs of one forward pass (two "
        "losses), pass retain_graph=True to the first backward(), or backward() their sum once"
    )


def constant(x: Any, like: Tensor, dtype: Any = None) -> Tensor:
    """``x`` as a constant Tensor (a leaf), in ``dtype`` if one is given: Python's numbers and lists
    in ``like``'s library and on its device, an array in its own library."""
    if like.xp is NUMPY or (is_array(x) and not isinstance(x, numbers.Real)):
        return Tensor(x, dtype=dtype)
    array = as_float_array(x, dtype)
    try:
        return Tensor(like.xp.asarray(array, device=like.device))
    except (TypeError, ValueError, RuntimeError):  # the library's words for a dtype its device has not
        if array.dtype == np.float64:
            check_holds_float64(like.xp, like.device, f"{a_type_name(x)} of numbers becomes float64, as in NumPy",
                                "give the numbers as an array of the tensor's dtype on its device, "
                                "t.xp.asarray(numbers, dtype=t.dtype, device=t.device)")
        raise


def _refuse_in_place_on_a_parameter(t: Tensor, op: str) -> None:
    """A TypeError for ``p -= ...`` on a leaf that requires a gradient: the name ``p`` would be
    bound to a new node, and the parameter itself (the model's, the optimiser's) left unchanged."""
    if t.requires_grad and not t.parents:
        raise TypeError(
            f"{op} on a tensor that requires grad and is a leaf (a parameter) would make a new tensor "
            f"and leave the parameter as it was: change its data, p.data {op} ..., as an "
            "optimiser's step does (SGD(params, lr).step())"
        )


def _parents_not_a_tuple(parents: Any, op: str) -> TypeError:
    """The error for an op's output whose ``parents`` is not a tuple (a Tensor iterates by rows)."""
    return TypeError(
        f"the {op!r} node got parents={parents!r:.60}, {a_type_name(parents)}: an op's parents are a "
        "tuple of Tensors, parents=(x, w), and a tuple of one needs its comma, parents=(x,)"
    )


def check_parents(root: Tensor, who: str = "backward") -> None:
    """A TypeError naming the first node, from ``root`` back, whose ``parents`` are not a tuple of
    Tensors. ``new_node`` refuses such parents, so only parents set by hand afterwards come here,
    once the walk has failed on them; it walks them itself (``topo_sort`` stops at the bad one).
    ``who`` is what met the graph: ``backward``, or the course's drawing."""
    for node in graph.each_node_once(root, lambda n: n.parents):
        if not isinstance(node.parents, tuple):
            raise TypeError(f"{who}: the {node.op!r} node's parents were set to {node.parents!r:.60}, "
                            f"{a_type_name(node.parents)}: a node's parents are a tuple of Tensors, which "
                            "only the op that makes it sets") from None
        for k, parent in enumerate(node.parents):
            if not isinstance(parent, Tensor):
                raise TypeError(f"{who}: the {node.op!r} node has parent {k} = {parent!r:.60}, "
                                f"{a_type_name(parent)}: a node's parents are Tensors, which only the op "
                                "that makes it sets") from None


def _not_a_parent(parent: Any, parents: tuple, op: str) -> TypeError:
    """The error for an op's output made with a parent that is not a Tensor, naming which."""
    k = next(i for i, p in enumerate(parents) if p is parent)
    hint = " (the Tensor itself, not its .data)" if is_array(parent) else ""
    return TypeError(
        f"the {op!r} node got parent {k} = {parent!r:.60}, {a_type_name(parent)}: an op's "
        f"parents are Tensors{hint}; make a constant a Tensor first, as the operators do "
        "(x.new_node(data, parents=(x, w), op=..., backward_rule=...))"
    )


def _seed(grad: ArrayLike, out: Tensor) -> Any:
    """The ``grad`` given to ``out.backward``: a finite array of ``out``'s shape, in its dtype,
    library and device."""
    given = grad.data if isinstance(grad, Tensor) else grad
    if isinstance(given, (str, bytes, bool, np.bool_)):  # NumPy would read "1" and True as 1.0
        raise TypeError(f"backward(grad=...) needs an array of numbers, got {type_name(given)} {given!r:.40}")
    xp = out.xp
    refuse_torch_graph(given, "backward(grad=...)", "every gradient tinyad computes from it")
    if is_array(given) and not isinstance(given, numbers.Real):
        own = namespace(given)
        if own is not xp or not same_device(given, out.data, xp):
            raise cannot_combine(given, own, out.data, xp, "backward")
    try:
        # A grad too large for float32 is named below. (array_api_strict casts with NumPy.)
        with np.errstate(over="ignore"):
            if xp is NUMPY:
                seed = np.array(given, dtype=out.dtype)
            elif is_array(given) and not isinstance(given, numbers.Real):
                seed = xp.asarray(given, dtype=out.dtype, copy=True)
            else:
                seed = xp.asarray(np.array(given, dtype=dtype_name(out.dtype)), device=out.device)
    except (TypeError, ValueError):
        raise TypeError(
            f"backward(grad=...) needs an array of numbers, got {type_name(given)}"
        ) from None
    if seed.shape != out.shape:
        raise ValueError(
            f"backward(grad=...) needs a grad of the output's shape {out.shape}, "
            f"got shape {tuple(seed.shape)}"
        )
    if not all_finite(seed, xp):
        if np.all(np.isfinite(np.asarray(to_numpy(given) if is_array(given) else given, dtype=np.float64))):
            raise ValueError(f"backward(grad=...) has entries {too_large(out.dtype, xp)}, the output's dtype")
        raise ValueError("backward(grad=...) needs a finite grad: it has nan or inf entries")
    return seed


