"""The computation graph, walked once for both engines.

What a node is and does, stated once (``Node`` below). It has

- ``parents``: the tuple of nodes it was computed from (``()`` for a leaf);
- ``grad``: where the gradient of the output with respect to the node collects;
- ``backward_rule``: ``None`` for a leaf, else a plain function ``rule(node)`` that
  adds ``node.grad`` times the local derivative into each parent's gradient;
- ``data`` and ``op``: its value, and the name of the operation that made it;

and it knows how to reset its gradient, add into it, say whether it has one, let go of
what backward no longer needs, and make a new leaf of its own kind. So the walk, the
optimisers, gradcheck and the stepper never decide for themselves what an empty gradient
is (``0.0`` for a ``Value``, ``None`` for a ``Tensor``), and nothing outside a node's
class writes its graph fields (``grad``, ``parents``, ``op``, ``backward_rule``). A leaf's
``data`` is its value, which training changes: the optimisers write ``p.data``.

A node hashes by identity (neither engine defines a value-based ``==``), so the walk
keeps the nodes it has seen in a set of the nodes themselves.

``Value`` (the scalar engine) and ``Tensor`` (the array engine) are both such nodes,
so both hand their output to the same two functions below: ``topo_sort`` and
``walk``. Nothing else in tinyad walks a graph, except ``each_node_once``, with which each
engine's ``check_parents`` looks over a hand-made graph the walk failed on, to name the node
that broke it.

The rules are plain functions of the node, not closures stored on it: a closure
that refers back to its own node makes a reference cycle, and a graph full of
cycles is freed only by Python's cyclic garbage collector, slowly. Here every
reference points from a node to its parents, so a graph is freed the moment its
last outside reference goes.
"""

from __future__ import annotations

import inspect
import re
from typing import Any, Callable, Iterable, Iterator, Optional, Protocol, runtime_checkable

from tinyad.validation import a_type_name


@runtime_checkable
class Node(Protocol):
    """A node of either engine's graph: what it holds, and what the walk and the rest ask it to do.

    ``grad`` is for reading: in the engine, only the node's own methods (and its engine's rules)
    change it. A leaf's gradient is also the learner's, to scale in place (``p.grad *= 0.5``).
    """

    data: Any
    grad: Any
    parents: tuple
    op: str
    backward_rule: Optional[Callable[[Any], None]]

    def zero_grad(self) -> None:
        """Forget the gradient: set it to the engine's empty gradient."""

    def has_grad(self) -> bool:
        """Whether there is a gradient to use (a ``Value``'s number always is one)."""

    def accumulate(self, grad: Any) -> None:
        """Add ``grad`` into the gradient (an empty gradient plus ``grad`` is ``grad``)."""

    def release(self) -> None:
        """Let go of what backward no longer needs, once this node's rule has run."""

    def new_leaf(self, data: Any) -> Any:
        """A new leaf of the same engine holding ``data``, whose gradient backward fills."""


# What ``Node`` names, read from it: its fields, then its methods.
NODE_FIELDS = (*Node.__annotations__,
               *(name for name, member in vars(Node).items() if callable(member) and not name.startswith("_")))


# The classes that declare every field ``Node`` names (in ``__slots__`` and methods, as
# ``Value`` and ``Tensor`` do) and whose instance had them all set: their one constructor sets
# every field, so one instance answers for its class, and the next call is one set lookup
# instead of ten attribute probes (``topo_sort`` asks on every backward).
_NODE_CLASSES: set[type] = set()


def is_node(x: object) -> bool:
    """Whether ``x`` is a node of a graph (a ``Value`` or a ``Tensor``): it has all that ``Node`` names.

    The same question as ``isinstance(x, Node)``, asked directly: a Protocol's isinstance
    is slow, and ``topo_sort`` asks it on every call.
    """
    if type(x) in _NODE_CLASSES:
        return True
    if isinstance(x, type):  # the class Value itself has every field, as descriptors
        return False
    if not all(hasattr(x, field) for field in NODE_FIELDS):
        return False
    if all(hasattr(type(x), field) for field in NODE_FIELDS):
        _NODE_CLASSES.add(type(x))
    return True


def topo_sort(root: Any) -> list:
    """Every node reachable from ``root`` once, each after all of its parents.

    Depth-first post-order: a node is appended only when all of its parents are
    in the list already, so parents come first and ``root`` comes last. The
    depth-first search keeps its own stack instead of recursing, so a chain of a
    million nodes sorts without ``RecursionError``.
    """
    if not is_node(root):
        raise TypeError(
            f"topo_sort needs a node of a graph (a Value or a Tensor), got {type(root).__name__}: {root!r}"
        )
    order: list = []
    visited = {root}
    # Two stacks side by side: the nodes on the current path, and for each an
    # iterator over its parents not yet visited. (Pairs of them would cost one
    # more object per node, and the collector looks at every object.)
    nodes = [root]
    pending = [iter(root.parents)]
    while pending:
        for parent in pending[-1]:
            if parent in visited:
                continue
            visited.add(parent)
            if parent.backward_rule is None:
                order.append(parent)  # a leaf waits for nothing: place it now
                continue
            nodes.append(parent)
            pending.append(iter(parent.parents))
            break
        else:
            # Every parent of the node on top is placed: the node can follow them.
            pending.pop()
            order.append(nodes.pop())
    return order


def each_node_once(root: Any, parents_of: Callable[[Any], Iterable]) -> Iterator:
    """Every node reachable from ``root`` through ``parents_of(node)``, each once, in no set order.

    For the checks that look over a graph the walk failed on (each engine's ``check_parents``):
    they check a node's parents when it is handed back, before its parents are asked for, so a
    node that is no node is named rather than walked into."""
    seen = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        yield node
        stack.extend(parents_of(node))


def walk(root: Any, seed: Any) -> Iterator:
    """Back-propagate from ``root``, handing back each node as its turn ends.

    1. ``topo_sort`` the graph.
    2. Reset the gradient of every interior node (one with a rule: an op's output), so an
       earlier backward leaves nothing behind in them. Leaves are not reset: their
       gradients accumulate across calls.
    3. Seed ``root``'s gradient with ``seed`` (1 for a single-number output).
    4. Visit the nodes in reverse topological order, so a node's rule runs only
       after every node that uses it has added its share into its gradient.

    Each node is yielded when its turn is over (its rule has run; a leaf has none):
    ``Value.backward`` collects the leaves, ``Tensor.backward`` frees each interior node's
    buffers (lesson 08), and lesson 02's stepper records the walk.
    """
    order = topo_sort(root)
    for node in order:
        if node.backward_rule is not None:
            node.zero_grad()
    root.accumulate(seed)
    while order:
        node = order.pop()  # from the end: reverse topological order, and the list lets go of it
        if node.backward_rule is not None:
            try:
                returned = node.backward_rule(node)
            except TypeError as error:  # named where the slip is the rule's form, not its arithmetic
                named = rule_not_callable(node) or added_into_none(node, error)
                if named is None:
                    raise
                raise named from None  # Python's words would only repeat it
            if returned is not None:
                raise rule_returned(node)  # a rule adds into its parents' gradients: a result would be lost
        yield node


def rule_not_callable(node: Any) -> Optional[TypeError]:
    """The error for a backward rule that cannot be called as ``rule(node)``: given by its name
    (a string) or written to take the gradient too. ``None`` when it can: the TypeError was the
    rule's own, from inside it."""
    rule = node.backward_rule
    if not callable(rule):
        return TypeError(
            f"the {node.op!r} node's backward rule is {rule!r}, {a_type_name(rule)}, not a function: "
            "give the function itself (backward_rule=the_rule, without quotes or a call)"
        )
    try:
        inspect.signature(rule).bind(node)
        return None
    except ValueError:  # a builtin without a signature: nothing to tell
        return None
    except TypeError:
        name = rule_name(node)
        return TypeError(
            f"the backward rule {name} of the {node.op!r} node cannot be called as {name}(node): a rule "
            "takes one argument, its node (read node.grad for the gradient, node.parents for its inputs)"
        )


def added_into_none(node: Any, error: TypeError) -> Optional[TypeError]:
    """The error for a rule that did ``parent.grad += ...`` (a ``Value``'s way) where the parent's
    gradient is still empty (a ``Tensor``'s is ``None`` until its first share arrives); ``None``
    for any other TypeError."""
    # Python's words for None + g and None += g: the empty gradient on the left of an addition.
    if not re.search(r"for \+=?: 'NoneType' and", str(error)) or all(p.has_grad() for p in node.parents):
        return None
    return TypeError(
        f"the backward rule {rule_name(node)} of the {node.op!r} node added into a gradient that is None "
        f"({error}): a Tensor's gradient is None until its first share arrives, so a rule adds "
        "into it with parent.accumulate(g), not parent.grad += g"
    )


def rule_returned(node: Any) -> TypeError:
    """The error for a backward rule that returned something: in PyTorch, a custom Function's
    backward returns the gradients; here a rule adds them into its parents (``accumulate``)."""
    return TypeError(
        f"the backward rule {rule_name(node)} of the {node.op!r} node returned a value: a rule returns nothing, "
        "it adds each parent's gradient into it (parent.grad += ... for a Value, "
        "parent.accumulate(...) for a Tensor), or the gradient is lost"
    )


def rule_name(node: Any) -> str:
    """How an error names ``node``'s backward rule: its function's name (its repr for a callable
    object without one)."""
    return getattr(node.backward_rule, "__name__", repr(node.backward_rule))
