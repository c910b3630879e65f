"""Optimisers: SGD (with momentum and weight decay) and Adam.

``Optimizer.step()`` walks the parameters and calls ``update(p, state)`` for each one
that has a gradient; ``state`` is that parameter's own dict (a momentum buffer, Adam's
moments), kept from step to step in ``optimizer.state``. ``SGD.update`` and
``Adam.update`` are the rules themselves, public and short, for a lesson to print.

They read and write only ``p.data`` and ``p.grad``, with arithmetic operators and a square root
(``sqrt``: of a number, or of an array in its own library), so the same classes drive ``Value``
parameters (floats) and ``Tensor`` parameters (arrays of NumPy or of any library that follows
the array API standard, on any device). The update rules are ``torch.optim.SGD``'s and
``torch.optim.Adam``'s: the same formulas, which PyTorch computes with fused operations (a
multiply and an add rounded once, Adam's terms rearranged), so the same run gives the same
numbers in both to rounding, a unit in the last place here and there in a step; over many steps
those grow as any rounding does.

What would corrupt a parameter is refused where it enters: a setting that is not a
finite number in range (whenever it is set: at construction, or later, as a schedule sets
``opt.lr``), a parameter that is not a leaf or the same parameter twice (at construction),
a gradient that is not a number or an array of them, not finite, or not of its parameter's
shape, and an update that would make the parameter overflow the float type, or (an update of one's
own) change what it holds: its shape, dtype or library, or an array for a number (at ``step()``).
A step is all or nothing: where it refuses, every parameter and state is as it was before it.
A step that finds no gradient at all (each ``None``, or each a Value's ``0.0``) warns: the loop
cleared the gradients between ``backward()`` and ``step()``, or never called ``backward()``.
"""

from __future__ import annotations

import difflib
import math
import numbers
import warnings
from typing import Any, Iterable, NoReturn

import numpy as np

from tinyad.validation import a_type_name, as_real, check_setting, with_article
from tinyad.graph import is_node
from tinyad.tensor.backend import (
    NUMPY, all_finite, describe, dtype_name, held_by_no_tensor, is_array, namespace, refuse_torch_graph, same_device,
    to_numpy,
)


class Setting:
    """An optimiser's number, checked (``check_setting``) every time it is set.

    ``SGD(params, lr=0.1)`` and a later ``opt.lr = 0.01`` are checked alike, and the number
    is stored as a float: nan, or a value out of range, never reaches ``update``. Reading
    ``opt.lr`` finds the stored float in the optimiser's ``__dict__`` directly: a descriptor
    without ``__get__`` is asked only when the attribute is set.
    """

    def __init__(self, low: float, high: float | None = None, low_allowed: bool = True) -> None:
        self.limits = (low, high, low_allowed)

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name  # the attribute it is: "lr", "momentum", ...

    def __set__(self, optimiser: Any, value: Any) -> None:
        optimiser.__dict__[self.name] = check_setting(self.name, value, *self.limits)


class Optimizer:
    """Holds the parameters; ``step()`` updates them, ``zero_grad()`` clears their gradients."""

    lr = Setting(low=0.0, low_allowed=False)

    def __init__(self, params: Iterable[Any], lr: float) -> None:
        self.params = _parameter_list(params)
        self.lr = lr
        self.state: list[dict[str, Any]] = [{} for _ in self.params]

    def zero_grad(self) -> None:
        for p in self.params:
            p.zero_grad()

    def __setattr__(self, name: str, value: Any) -> None:
        # A setting under another library's name, or misspelt, would be stored and never read: a
        # schedule's opt.learning_rate = 0.01 would change nothing. (An optimiser of one's own,
        # a subclass written elsewhere, keeps any attribute it sets.)
        known = (name in ("params", "state") or name.startswith("_") or name in self.__dict__
                 or isinstance(getattr(type(self), name, None), (Setting, property)))
        if not known and type(self).__module__ == __name__:
            raise _no_such_setting(self, name)
        super().__setattr__(name, value)

    def _no_param_groups(self, *value: Any) -> NoReturn:
        raise AttributeError(
            f"{type(self).__name__} has one group of parameters, not PyTorch's param_groups: its "
            "settings are the optimiser's own (opt.lr = 0.01 for a schedule), its parameters opt.params"
        )

    param_groups = property(_no_param_groups, _no_param_groups)

    def step(self) -> None:
        """One update of every parameter that has a gradient (a Tensor's may have none yet).

        All or nothing: every gradient is checked before any parameter moves, and if an update would
        make a parameter not finite (a gradient with nan or inf, or a step beyond the float type),
        every parameter this step updated is put back, with its state, and an error names the one.
        """
        if len(self.params) != len(self.state):  # zip would skip the ones added: refuse instead
            raise RuntimeError(
                f"the optimiser was made with {len(self.state)} parameters and now lists "
                f"{len(self.params)}: make a new one for the new list (SGD(model.parameters(), lr))"
            )
        ready = [(k, p, state) for k, (p, state) in enumerate(zip(self.params, self.state)) if p.has_grad()]
        if _found_no_gradient(ready):
            warnings.warn(_no_gradient_message(self), stacklevel=2)
        for k, p, _ in ready:
            _check_grad(k, p)
        done = []  # (k, parameter, its state, and both as they were before this step)
        try:
            for k, p, state in ready:
                before = p.data
                # A state kept from earlier steps, for the parameter's shape then, would broadcast into
                # the update of a parameter resized since (momentum of shape (1,) into a (3,)), and one
                # of its dtype then would turn it back (float64 momentum into a parameter made float32).
                # A Value's number has no shape or dtype to change: not asked (it tripled a Value's step).
                if state and type(before) is not float and _stale_state(before, state):
                    raise _state_of_another_kind(self, k, before, state)
                done.append((k, p, state, before, dict(state) if state else None))
                self.update(p, state)
                after = p.data
                if not (type(after) is np.ndarray and type(before) is np.ndarray  # a NumPy Tensor's, or a
                        and after.shape == before.shape and after.dtype is before.dtype  # Value's: asked first
                        or type(after) is float and type(before) is float):
                    p.data = after = _settled(k, p, before, after)
                # Asked of the result rather than of the gradient: a gradient with nan or inf gives
                # a result with them too, and so does a step beyond the float type. (Adam's running
                # mean of squares, which can overflow without moving the parameter, is not asked:
                # that would double the checks' cost, for gradients above 1e154, or 1e19 in float32.)
                if not _finite(after):
                    raise _refused_update(k, p, self, _changed_in_place(done))
        except BaseException:  # this error, or one raised by an update: put back what moved
            for _, q, q_state, q_data, q_kept in done:
                q.data = q_data
                q_state.clear()
                q_state.update(q_kept or {})
            raise

    def update(self, p: Any, state: dict[str, Any]) -> None:
        """Move one parameter ``p`` by its gradient; ``state`` is its own dict, kept between steps."""
        raise NotImplementedError(f"{type(self).__name__} must define update(p, state)")


class SGD(Optimizer):
    """``p -= lr * g``, where ``g`` is the gradient plus weight decay, through momentum if any.

    The momentum buffer starts as the first gradient, then ``buffer = momentum * buffer + g``.
    """

    momentum = Setting(low=0.0)
    weight_decay = Setting(low=0.0)

    def __init__(
        self, params: Iterable[Any], lr: float, momentum: float = 0.0, weight_decay: float = 0.0
    ) -> None:
        super().__init__(params, lr)
        self.momentum = momentum
        self.weight_decay = weight_decay

    def update(self, p: Any, state: dict[str, Any]) -> None:
        g = p.grad
        if self.weight_decay:  # a pull of every weight towards 0, added to the gradient
            g = g + self.weight_decay * p.data
        if self.momentum:
            if "buffer" in state:
                state["buffer"] = self.momentum * state["buffer"] + g
            else:
                state["buffer"] = g * 1.0  # the first gradient, copied
            g = state["buffer"]
        p.data = p.data - self.lr * g


class Adam(Optimizer):
    """Adam: steps along a running mean of the gradient, scaled by a running mean of its square.

    Both means start at 0, so each is divided by its bias correction ``1 - beta**t``;
    ``eps`` is added outside the square root, as in PyTorch.
    """

    eps = Setting(low=0.0, low_allowed=False)  # eps = 0 would make a zero gradient's step 0 / 0
    weight_decay = Setting(low=0.0)

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr)
        self.betas = betas
        self.eps = eps
        self.weight_decay = weight_decay

    @property
    def betas(self) -> tuple[float, float]:
        """The decay rates of the two running means, each checked as a ``Setting`` is."""
        return self._betas

    @betas.setter
    def betas(self, betas: Any) -> None:
        if not (isinstance(betas, (tuple, list)) and len(betas) == 2):
            raise ValueError(f"betas must be a pair (beta1, beta2), got {betas!r}")
        self._betas = tuple(check_setting(name, beta, low=0.0, high=1.0)
                            for name, beta in zip(("betas[0]", "betas[1]"), betas))

    def update(self, p: Any, state: dict[str, Any]) -> None:
        beta1, beta2 = self.betas
        g = p.grad
        if self.weight_decay:  # as in SGD: added to the gradient
            g = g + self.weight_decay * p.data
        state["t"] = state.get("t", 0) + 1  # steps taken
        # First moment: a running mean of the gradient (starts at 0).
        state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g
        # Second moment: a running mean of the gradient squared, element by element.
        state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * g * g
        # Bias correction: undo the pull towards the zeros the means started from.
        m_hat = state["m"] / (1 - beta1 ** state["t"])
        v_hat = state["v"] / (1 - beta2 ** state["t"])
        # Step by the mean over its typical size; eps outside the square root.
        p.data = p.data - self.lr * m_hat / (sqrt(v_hat) + self.eps)


def sqrt(x: Any) -> Any:
    """The square root of a number (``math.sqrt``) or of an array (its own library's ``sqrt``).

    Not ``x ** 0.5``: that is a power, which NumPy before 2.3 rounds differently from the square
    root for some libraries' arrays (a unit in the last place in one entry of twenty), where the
    square root is correctly rounded in every library, so Adam's step is the same to the last bit
    in each library that computes with NumPy.
    """
    return namespace(x).sqrt(x) if is_array(x) else math.sqrt(x)


def _stale_state(data: Any, state: dict[str, Any]) -> list[str]:
    """The names of the arrays in a parameter's ``state`` whose shape, library or dtype is not its
    ``data``'s (a NumPy float of Adam's 0-d state is an array of shape (); a number, such as Adam's
    step count, none)."""
    if type(data) is np.ndarray:  # asked first: a NumPy parameter's state is asked at every step
        return [name for name, value in state.items()
                if (value.shape != data.shape or value.dtype != data.dtype if type(value) is np.ndarray
                    else _other_kind(value, data))]
    return [name for name, value in state.items() if _other_kind(value, data)]


def _other_kind(kept: Any, data: Any) -> bool:
    """Whether ``kept``, an entry of a parameter's state, is an array that differs from the array
    ``data`` in shape, library or dtype (a number, such as Adam's step count, is none)."""
    return (type(kept) is not int and is_array(kept)
            and (_shape(kept) != _shape(data) or namespace(kept) is not namespace(data) or kept.dtype != data.dtype))


def _state_of_another_kind(optimiser: Optimizer, k: int, data: Any, state: dict[str, Any]) -> ValueError:
    """The error for parameter ``k`` (its array ``data``) whose ``state`` holds arrays of another
    shape, library or dtype (``_stale_state``): the parameter was resized, or converted, since the
    optimiser last stepped it."""
    stale = _stale_state(data, state)
    kept = state[stale[0]]
    if _shape(kept) != _shape(data):
        what, now, then = "shape", f"has shape {_shape(data)}", f"has shape {_shape(kept)}"
    elif namespace(kept) is not namespace(data):
        what, now, then = "library", f"is {describe(data, NUMPY)}", f"is {describe(kept, NUMPY)}"
    else:
        what, now, then = "dtype", f"has dtype {dtype_name(data.dtype)}", f"has dtype {dtype_name(kept.dtype)}"
    return ValueError(
        f"parameter {k} {now}, but the optimiser's state for it ({', '.join(stale)}) {then}: the "
        f"parameter changed {what} after the optimiser last stepped it. Make a new optimiser for the "
        f"changed parameters ({type(optimiser).__name__}(model.parameters(), lr))"
    )


def _settled(k: int, p: Any, before: Any, after: Any) -> Any:
    """Parameter ``k``'s data ``after`` its update, where it is not what it was ``before`` in kind
    (a float, a NumPy array of one shape and dtype): as the parameter keeps it, or an error.

    A Tensor's is an array of its library, shape and dtype: NumPy's arithmetic on a 0-d array gives a
    NumPy float, made an array again. A Value's is a Python float: a NumPy gradient's arithmetic gives
    a NumPy float. Anything else, an
    update of one's own wrote (a number or a list for a Tensor, an array for a Value), is refused.
    """
    if not _is_tensor(p):  # a Value's number
        if isinstance(after, numbers.Real) and not isinstance(after, bool):
            return as_real(after, f"parameter {k}'s data")
        raise TypeError(f"the update made parameter {k}'s data {a_type_name(after)} ({after!r:.60}), where it "
                        "was a number: a Value's update writes a number")
    if isinstance(after, np.generic):
        after = np.asarray(after)
    if not is_array(after):
        raise TypeError(
            f"the update made parameter {k}'s data {a_type_name(after)} ({after!r:.60}), where it was an "
            f"array of shape {_shape(before)}: an update writes an array of the parameter's shape and library"
        )
    if _shape(after) != _shape(before):
        raise ValueError(f"the update changed parameter {k}'s shape from {_shape(before)} to {_shape(after)}")
    own = namespace(p.grad)
    if namespace(after) is not own or after.dtype != p.grad.dtype:
        raise TypeError(
            f"the update made parameter {k}'s data {describe(after, namespace(after))} of "
            f"{dtype_name(after.dtype)}, where its gradient is {describe(p.grad, own)} of "
            f"{dtype_name(p.grad.dtype)}: an update keeps the parameter's library and dtype"
        )
    return after


def _no_such_setting(optimiser: Optimizer, name: str) -> AttributeError:
    """The error for ``opt.<name> = ...`` where the optimiser has no such setting."""
    kind = type(optimiser)
    settings = sorted(n for n in dir(kind) if isinstance(getattr(kind, n), (Setting, property)) and n != "param_groups")
    asked = name.lower()  # opt.LR is lr too
    close = ["lr"] if asked == "learning_rate" else difflib.get_close_matches(asked, settings, n=1, cutoff=0.8)
    return AttributeError(
        f"{kind.__name__} has no setting {name!r}: set so, it would change nothing"
        + (f"; the setting is {close[0]!r}" if close else "") + f" (its settings: {', '.join(settings)})"
    )


def _found_no_gradient(ready: list) -> bool:
    """Whether the parameters ``ready`` for a step (``(k, p, state)``, each with a gradient) give it
    nothing to step by: there are none (every Tensor's gradient is None), or every one is a Value's 0.0."""
    if not ready:
        return True
    if type(ready[0][1].grad) is not float:  # an array: asked first, as the common case costs a step least
        return False
    return all(type(p.grad) is float and p.grad == 0.0 for _, p, _ in ready)


def _no_gradient_message(optimiser: Optimizer) -> str:
    """The warning for a step that found no gradient: the classic slip of a training loop that
    clears the gradients between ``backward()`` and ``step()``, or never calls ``backward()``."""
    empty = " or ".join(sorted({"0.0" if type(p.grad) is float else "None" for p in optimiser.params}))
    return (
        f"{type(optimiser).__name__}.step() found no gradient in any of its {len(optimiser.params)} "
        f"parameters (each is {empty}), so it has nothing to step by: call loss.backward() before "
        "step(), and zero_grad() after step() or before backward(), not between the two. If the loop "
        "does, the optimiser holds another model's parameters: a model made again after its optimiser "
        "(a notebook cell run again) needs a new optimiser, SGD(model.parameters(), lr)"
    )


def _parameter_list(params: Any) -> list:
    """``params`` as a list of distinct leaves, or an error that says what to pass instead."""
    what = type(params).__name__
    if isinstance(params, dict):  # list(d) would be its keys
        raise TypeError("the optimiser got a dict; pass its parameters, list(d.values())")
    if callable(getattr(params, "parameters", None)):
        raise TypeError(f"the optimiser got {a_type_name(params)}; pass its parameters: model.parameters()")
    if is_node(params):  # one Value or Tensor: iterating a Tensor would give its rows
        raise TypeError(f"the optimiser got one {what}; pass a list of parameters: [p]")
    if callable(params) and not hasattr(params, "__iter__"):  # model.parameters, not called
        name = getattr(params, "__name__", what)
        raise TypeError(f"the optimiser got the method {name} itself, not the list it returns: call it, "
                        "model.parameters()")
    try:
        once = iter(params) is params  # a generator or an iterator: its items come once
        params = list(params)
    except TypeError:
        raise TypeError(f"the optimiser needs a list of parameters, got {params!r}") from None
    if not params:
        if once:
            raise ValueError(
                f"the optimiser got an empty {what}: {with_article(what)} gives its items once, so one already "
                "used up (by another optimiser, or a loop) gives none. Pass a list, model.parameters()"
            )
        raise ValueError("the optimiser got an empty list of parameters")
    first_seen: dict[int, int] = {}
    for k, p in enumerate(params):
        if not is_node(p):
            raise TypeError(
                f"parameter {k} is {a_type_name(p)}: parameters are Values or Tensors "
                "(the leaves whose .data the optimiser updates from their .grad)" + _instead_of_entry(p)
            )
        if p.parents or p.backward_rule is not None:  # an op's output (released by backward: no parents)
            raise ValueError(
                f"parameter {k} is not a leaf: it is the output of {p.op!r}, and the next forward "
                "pass would not use it; pass the "
                "leaves you created (model.parameters()), or .detach() it into a new leaf"
            )
        if id(p) in first_seen:
            raise ValueError(
                f"parameter {k} is the same object as parameter {first_seen[id(p)]}: it would be "
                "updated twice per step; list each parameter once"
            )
        first_seen[id(p)] = k
    return params


def _instead_of_entry(p: Any) -> str:
    """What to pass where a list of parameters holds a module or a list of parameters."""
    if callable(getattr(p, "parameters", None)):
        return ("; it is a module: pass the parameters, model.parameters(), or for a list of layers "
                "[p for layer in layers for p in layer.parameters()]")
    if isinstance(p, (list, tuple)) and p and all(is_node(q) for q in p):
        return (f"; it is {a_type_name(p)} of {len(p)} parameters: pass one flat list, "
                "model.parameters() itself, or a + b to join two lists")
    return ""


def _is_real(grad: Any) -> bool:
    """Whether ``grad`` is a real number (not a bool) or an array of ints or floats."""
    if isinstance(grad, np.ndarray):
        return grad.dtype.kind in "iuf"
    if is_array(grad) and not isinstance(grad, np.generic):
        return namespace(grad).isdtype(grad.dtype, ("integral", "real floating"))
    return isinstance(grad, numbers.Real) and not isinstance(grad, bool)


def _check_grad(k: int, p: Any) -> None:
    """A finite gradient of the parameter's own shape, library and device, or a TypeError or
    ValueError naming what is wrong."""
    g, data = p.grad, p.data
    if type(g) is float and type(data) is float:  # a Value's: one number each, quickly
        return
    if type(g) is np.ndarray and type(data) is np.ndarray:  # a NumPy Tensor's, quickly
        if g.dtype != data.dtype:
            if g.dtype.kind not in "iuf":
                _not_real(k, g)
            _check_data_of_a_tensor(k, data)  # ints set by hand, not a gradient to convert
            _check_dtype(k, g, data)
        if g.shape != data.shape:
            _check_shape(k, g.shape, data.shape)
        return
    if not _is_real(g):  # a list or a string would fail later, in the library's words
        _not_real(k, g)
    refuse_torch_graph(g, f"p.grad = ... (parameter {k})", "the update")
    if not _is_tensor(p):  # a Value's: numbers, NumPy's floats among them (np.clip gives one)
        if not isinstance(data, numbers.Real) or isinstance(data, bool):  # set by hand
            raise TypeError(f"parameter {k}'s data is {a_type_name(data)} ({data!r:.60}), set by hand "
                            "(p.data = ...): a Value's data is a number")
        if not isinstance(g, (int, float)):
            raise TypeError(
                f"parameter {k} is a Value, but its gradient is {a_type_name(g)} ({g!r:.60}): a Value's "
                "gradient is a Python number, and the update would make its data one too"
            )
        as_real(g, f"parameter {k}'s gradient")  # an int beyond any float is named here, not in the update
        as_real(data, f"parameter {k}'s data")
        return
    _check_data_of_a_tensor(k, data)  # before its shape: a number set by hand has shape ()
    xp = namespace(g) if is_array(g) else NUMPY
    if is_array(g) and is_array(data):
        own = namespace(data)
        if own is not xp or not same_device(g, data, xp):
            where = own is xp
            raise TypeError(
                f"parameter {k} is {describe(data, own, where)} but its gradient is "
                f"{describe(g, xp, where)}: a gradient must be in its parameter's library and on its device"
            )
    _check_shape(k, _shape(g), _shape(data))
    if not is_array(g):  # a number for a 0-d tensor: the update would make its data one too
        raise TypeError(
            f"parameter {k} is {describe(data, namespace(data))} of shape {_shape(data)}, but its "
            f"gradient is {a_type_name(g)} ({g!r:.60}): a Tensor's gradient is an array of its "
            "shape and dtype, in its library"
        )
    _check_dtype(k, g, data)


def _check_data_of_a_tensor(k: int, data: Any) -> None:
    """A TypeError if a Tensor's ``data`` was set by hand to what no Tensor holds (a number, a list, a
    Tensor, an array of ints: ``held_by_no_tensor``), in those words rather than its gradient's."""
    what = held_by_no_tensor(data)
    if what:
        raise TypeError(f"parameter {k}'s data is {what}, set by hand (p.data = ...): a Tensor's data is an "
                        "array of float32 or float64")


def _is_tensor(p: Any) -> bool:
    """Whether parameter ``p`` is a Tensor (it keeps its library's namespace, ``xp``), not a Value:
    told by the node, as its data or gradient may be a NumPy float in either."""
    return hasattr(p, "xp")


def _check_dtype(k: int, g: Any, data: Any) -> None:
    """A TypeError unless the gradient has its parameter's dtype: the update ``data - lr * g``
    would otherwise turn a float32 parameter into float64 (or fail, in a library that does not
    mix integers and floats), where backward always gives a gradient in its parameter's dtype."""
    if g.dtype != data.dtype:
        raise TypeError(
            f"parameter {k} is {dtype_name(data.dtype)} but its gradient is {dtype_name(g.dtype)}: a "
            "gradient must have its parameter's dtype, as backward's do (convert it first: an update "
            "must not change the parameter's dtype)"
        )


def _shape(x: Any) -> tuple[int, ...]:
    return tuple(x.shape) if is_array(x) else np.shape(x)


def _not_real(k: int, g: Any) -> NoReturn:
    what = f"an array of dtype {dtype_name(g.dtype)}" if is_array(g) else a_type_name(g)
    raise TypeError(
        f"parameter {k}'s gradient is {what} ({g!r:.60}): a gradient is a real number (a "
        "Value's) or an array of real numbers in its parameter's shape (a Tensor's)"
    )


def _check_shape(k: int, grad_shape: tuple[int, ...], data_shape: tuple[int, ...]) -> None:
    if grad_shape != data_shape:
        raise ValueError(
            f"parameter {k} has shape {data_shape} but its grad has shape {grad_shape}: the "
            "update would change the parameter's shape; a gradient must have its parameter's shape"
        )


def _changed_in_place(done: list) -> list[str]:
    """What the updates in ``done`` may have changed in place: a parameter's array, or an array in
    its state, that is still the very object it was before (the optimisers here make new ones)."""
    changed = []
    for k, p, state, data, kept in done:
        if p.data is data and is_array(data):
            changed.append(f"parameter {k}'s array")
        for key, value in (kept or {}).items():
            if state.get(key) is value and is_array(value):
                changed.append(f"parameter {k}'s state[{key!r}]")
    return changed


def _finite(x: Any) -> bool:
    """Whether a parameter's data or gradient (a number, an array) holds no nan or inf."""
    if type(x) is np.ndarray:
        return all_finite(x, NUMPY)
    if isinstance(x, numbers.Real):
        return math.isfinite(x)
    return not is_array(x) or all_finite(x, namespace(x))


def _refused_update(k: int, p: Any, optimiser: Optimizer, changed: list[str]) -> Exception:
    """The error for parameter ``k``, whose update made its data not finite. ``changed`` names what
    an update of one's own changed in place (``p.data -= ...``, ``state["buffer"] *= ...``), which
    putting the old arrays back cannot undo: the error says so rather than promise it back."""
    g = p.grad
    left = ("every parameter and state is left as it was before this step" if not changed else
            f"the update changed {' and '.join(changed)} in place, where the change stays; the rest is "
            "left as it was before this step")
    if not _finite(g):
        if isinstance(g, numbers.Real):
            what = f"the gradient {g}"
        else:
            xp = namespace(g)
            what = f"a gradient with {int(xp.count_nonzero(~xp.isfinite(g)))} nan or inf entries"
        return ValueError(f"parameter {k} has {what}: the update would write nan or inf into it; {left}")
    largest = float(np.max(np.abs(to_numpy(g))))
    return OverflowError(
        f"the update of parameter {k} overflows the float type (its largest gradient entry is "
        f"{largest:.3g}, lr = {optimiser.lr:g}): it would hold inf or nan; {left}. A smaller lr, a "
        "loss of smaller scale or clipped gradients would step within range"
    )
