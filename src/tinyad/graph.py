"""The computation graph, walked once for both engines.

What a node is, stated once (``Node`` below): anything with

- ``parents``: the tuple of nodes it was computed from (``()`` for a leaf);
- ``grad``: where the gradient of the output with respect to the node collects;
- ``backward_rule``: ``None`` for a leaf, else a plain function ``rule(node)`` that
  adds ``node.grad`` times the local derivative into each parent's ``grad``;
- ``data`` and ``op``: its value, and the name of the operation that made it.

A node hashes by identity (neither engine defines a value-based ``==``), so the walk
keeps the nodes it has seen in a set of the nodes themselves.

``Value`` (the scalar engine) and ``Tensor`` (the array engine) are both such nodes,
so both hand their output to the same two functions below: ``topo_sort`` and
``backward``. Nothing else in tinyad walks a graph.

The rules are plain functions of the node, not closures stored on it: a closure
that refers back to its own node makes a reference cycle, and a graph full of
cycles is freed only by Python's cyclic garbage collector, slowly. Here every
reference points from a node to its parents, so a graph is freed the moment its
last outside reference goes.
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Protocol, runtime_checkable


@runtime_checkable
class Node(Protocol):
    """A node of either engine's graph: the fields the walk, the drawing and the checks read."""

    data: Any
    grad: Any
    parents: tuple
    op: str
    backward_rule: Optional[Callable[[Any], None]]


NODE_FIELDS = ("data", "grad", "parents", "op", "backward_rule")


def is_node(x: object) -> bool:
    """Whether ``x`` is a node of a graph (a ``Value`` or a ``Tensor``): it has every field of ``Node``.

    The same question as ``isinstance(x, Node)``, asked directly: a Protocol's isinstance
    is slow, and ``topo_sort`` asks it on every call.
    """
    return all(hasattr(x, field) for field in NODE_FIELDS)


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
            grandparents = parent.parents
            if not grandparents:
                order.append(parent)  # a leaf waits for nothing: place it now
                continue
            nodes.append(parent)
            pending.append(iter(grandparents))
            break
        else:
            # Every parent of the node on top is placed: the node can follow them.
            pending.pop()
            order.append(nodes.pop())
    return order


def backward(
    root: Any,
    seed: Any,
    interior_grad: Any,
    release: bool = False,
    after_each: Callable[[Any], None] | None = None,
) -> list:
    """Back-propagate from ``root``: sort, reset, seed, then walk in reverse.

    1. ``topo_sort`` the graph.
    2. Set the ``grad`` of every interior node (one with parents) to
       ``interior_grad``, so an earlier backward leaves nothing behind in them.
       Leaves are not reset: their gradients accumulate across calls.
    3. Seed ``root.grad`` with ``seed`` (1 for a scalar output).
    4. Visit the nodes in reverse topological order, so a node's rule runs only
       after every node that uses it has added its share into ``node.grad``.

    With ``release=True`` each interior node lets go of its parents, its saved
    buffers and its gradient as soon as its rule has run: that gradient has
    been passed on, and nothing will ask for it again.

    ``after_each(node)``, if given, is called when each node's turn is over (its
    rule has run; a leaf has none): lesson 02's step-through widget records the
    walk with it.

    Returns the leaves the walk reached: their gradients are the answer.
    """
    order = topo_sort(root)
    for node in order:
        if node.parents:
            node.grad = interior_grad
    root.grad = seed
    leaves = []
    while order:
        node = order.pop()  # pop from the end: reverse topological order
        rule: Callable[[Any], None] | None = node.backward_rule
        if rule is None:
            leaves.append(node)
        else:
            rule(node)
            if release:
                node.release()
        if after_each is not None:
            after_each(node)
    return leaves
