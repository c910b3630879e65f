"""Pictures of the computation graph, for the lessons.

``draw(root)`` turns the graph behind ``root`` into a ``graphviz.Digraph``: a
record node per value (its label, data and grad) and a small node per operation
between the operation's inputs and its output, laid out left to right. Nodes are
named by their position in ``topo_sort(root)``, so the same graph gives the same
DOT source on every run.

Any node with ``data``, ``grad``, ``parents`` and ``op`` can be drawn (``label``
is used if it has one): a ``Value`` shows its numbers, a node whose data is an
array shows its shape instead.

A graph with more than ``max_nodes`` values (80 by default) is drawn in part:
the last ``max_nodes`` values in topological order, which are the root and the
nodes nearest to it. A small "..." feeds each operation whose inputs were left
out, and one note says how many they are.

In JupyterLab a drawing keeps its natural size, with a scroll bar when it is
wider than the notebook (shrunk to fit, a wide graph's labels could not be read).

Without the Graphviz ``dot`` program a drawing still displays in a notebook:
as its DOT text, under a one-line hint how to install Graphviz.

``BackwardStepper(root)`` replays the backward walk one node at a time for lesson
02: snapshots of every grad after each step, and a small ipywidgets UI (reset,
previous, next) that redraws the graph with the current node highlighted.

``progress(steps, desc)`` is ``range(steps)`` with a progress bar, for training loops.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any, Iterator

import graphviz

from tinyad import graph
from tinyad.graph import topo_sort

MAX_NODES = 80

INSTALL_HINT = (
    "Graphviz's 'dot' program was not found, so the graph is shown as DOT text. "
    "To see the picture, install Graphviz itself (pip's graphviz is only the Python side): "
    "apt install graphviz, conda install -c conda-forge graphviz, or brew install graphviz."
)


class Drawing(graphviz.Digraph):
    """A ``graphviz.Digraph`` that displays as DOT text plus a hint when ``dot`` is missing."""

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **kwargs: Any
    ) -> tuple[dict, dict]:
        """The display data and its metadata, as IPython takes them."""
        try:
            bundle = super()._repr_mimebundle_(include=include, exclude=exclude, **kwargs)
        except graphviz.ExecutableNotFound:
            return {"text/plain": f"{INSTALL_HINT}\n\n{self.source}"}, {}
        # A stable text form too: the default repr would show a memory address. And
        # "unconfined": JupyterLab would otherwise shrink the SVG to the cell's width.
        return {"text/plain": repr(self), **bundle}, {"image/svg+xml": {"unconfined": True}}

    def __repr__(self) -> str:
        return "<tinyad drawing: display it in a notebook, or read its .source>"


def draw(root: Any, max_nodes: int = MAX_NODES) -> Drawing:
    """The graph behind ``root`` as a Graphviz drawing: one record per value, one node per op."""
    if not all(hasattr(root, name) for name in ("data", "grad", "parents", "op")):
        raise TypeError(
            "draw() needs a graph node with data, grad, parents and op (a Value or a Tensor), "
            f"got {type(root).__name__}"
        )
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, int) or max_nodes < 1:
        raise ValueError(f"draw() needs max_nodes to be a positive int, got {max_nodes!r}")

    order = topo_sort(root)
    position = {id(node): k for k, node in enumerate(order)}
    first = max(0, len(order) - max_nodes)  # values before this position are left out

    dot = Drawing(graph_attr={"rankdir": "LR"}, node_attr={"fontsize": "10"})
    if first:
        dot.node("omitted", f"{first} earlier values not drawn; ... marks where they feed in", shape="note")
    for k in range(first, len(order)):
        node = order[k]
        dot.node(f"v{k}", _record(node), shape="record")
        if not node.parents:
            continue
        op_name = f"v{k}_op"
        dot.node(op_name, node.op or "?", shape="ellipse", width="0.3", height="0.3")
        dot.edge(op_name, f"v{k}")
        omitted_parent = False
        for parent in node.parents:
            j = position[id(parent)]
            if j >= first:
                dot.edge(f"v{j}", op_name)
            elif not omitted_parent:  # one stub beside the op, not an edge from afar
                omitted_parent = True
                dot.node(f"v{k}_earlier", "...", shape="plaintext")
                dot.edge(f"v{k}_earlier", op_name, style="dashed")
    return dot


def _record(node: Any) -> str:
    """The record label of a value: ``{label | data ... | grad ...}``, label only if it has one."""
    fields = [f"data {_show(node.data)}", f"grad {_show(node.grad)}"]
    label = getattr(node, "label", "")
    if label:
        fields.insert(0, str(label))
    return "{" + " | ".join(_escape(field) for field in fields) + "}"


def _show(x: Any) -> str:
    """A number to 4 significant digits; an array by its shape; ``None`` as is."""
    if x is None:
        return "None"
    shape = getattr(x, "shape", ())
    if shape != ():
        return f"shape {tuple(shape)}"
    return f"{float(x) + 0.0:.4g}"  # + 0.0 turns -0.0 into 0.0: "grad -0" would only puzzle


def _escape(text: str) -> str:
    """Escape the characters that structure a Graphviz record label."""
    for char in "\\{}|<>":
        text = text.replace(char, "\\" + char)
    return text


# -- stepping through backward, one node at a time -----------------------------

CURRENT_COLOUR = "gold"  # the node whose rule ran in this step
DONE_COLOUR = "lightgrey"  # nodes already visited: their grad is final


@dataclass(frozen=True)
class Step:
    """One moment of the backward walk: the node just visited and every grad after it."""

    position: int  # the node's position in topo_sort(root)
    grads: tuple[float, ...]  # every node's grad after this step, in topo_sort order
    message: str  # what happened, in words


class BackwardStepper:
    """The backward walk from ``root`` replayed one node at a time, for the lesson's widget.

    Building it runs the engine's walk (``tinyad.graph.backward``) once, from zero
    gradients everywhere (as on a fresh graph), and keeps a snapshot of every
    node's grad after each step: step 0 seeds the root with 1, then each node is
    visited in reverse topological order. The graph's own grads are put back
    afterwards, so building, stepping and drawing change nothing in the graph.
    """

    def __init__(self, root: Any, max_nodes: int = MAX_NODES) -> None:
        if not isinstance(getattr(root, "data", None), float):
            raise TypeError(
                "BackwardStepper steps a graph of scalar Values, "
                f"got a root of type {type(root).__name__}"
            )
        self.root = root
        self.max_nodes = max_nodes
        self.order: list = topo_sort(root)
        self.steps: list[Step] = self._record()
        self.position = 0  # the index into self.steps shown now
        self._ui: Any = None  # the widget, once built

    @property
    def current(self) -> Step:
        """The step shown now."""
        return self.steps[self.position]

    @property
    def node(self) -> Any:
        """The node highlighted now."""
        return self.order[self.current.position]

    def next(self) -> None:
        """Go one step forward in the walk; at the last step, stay there."""
        self._go(min(self.position + 1, len(self.steps) - 1))

    def previous(self) -> None:
        """Go one step back; at the seed, stay there."""
        self._go(max(self.position - 1, 0))

    def reset(self) -> None:
        """Go back to step 0, the seed."""
        self._go(0)

    def draw(self) -> Drawing:
        """The graph with the grads of the current step, the current node highlighted."""
        step = self.current
        saved = [node.grad for node in self.order]
        try:
            for node, grad in zip(self.order, step.grads):
                node.grad = grad
            drawing = draw(self.root, max_nodes=self.max_nodes)
        finally:
            for node, grad in zip(self.order, saved):
                node.grad = grad
        drawn = {line.split()[0] for line in drawing.body if line.strip()}
        visited = {s.position for s in self.steps[1 : self.position + 1]}
        for k in sorted(visited - {step.position}):
            if f"v{k}" in drawn:
                drawing.node(f"v{k}", style="filled", fillcolor=DONE_COLOUR)
        if f"v{step.position}" in drawn:
            drawing.node(f"v{step.position}", style="filled", fillcolor=CURRENT_COLOUR)
        return drawing

    def widget(self) -> Any:
        """Buttons (reset, previous, next), a line saying what happened, and the graph."""
        if self._ui is None:
            import ipywidgets as widgets

            self.reset_button = widgets.Button(description="reset")
            self.previous_button = widgets.Button(description="previous")
            self.next_button = widgets.Button(description="next")
            self.reset_button.on_click(lambda _: self.reset())
            self.previous_button.on_click(lambda _: self.previous())
            self.next_button.on_click(lambda _: self.next())
            self.label = widgets.Label()
            self.picture = widgets.HTML()
            buttons = widgets.HBox([self.reset_button, self.previous_button, self.next_button])
            self._ui = widgets.VBox([buttons, self.label, self.picture])
            self._show()
        return self._ui

    # -- helpers ------------------------------------------------------------

    def _go(self, position: int) -> None:
        self.position = position
        if self._ui is not None:
            self._show()

    def _show(self) -> None:
        """Redraw the widget for the current step."""
        last = len(self.steps) - 1
        self.label.value = f"step {self.position} of {last}: {self.current.message}"
        self.previous_button.disabled = self.position == 0
        self.next_button.disabled = self.position == last
        bundle, _ = self.draw()._repr_mimebundle_()
        if "image/svg+xml" in bundle:
            svg = bundle["image/svg+xml"]
            # Natural size, scrolling sideways when wider than the notebook.
            picture = svg[svg.find("<svg") :]
            self.picture.value = f'<div style="overflow-x: auto">{picture}</div>'
        else:  # no dot program: the DOT text under the install hint
            self.picture.value = f"<pre>{html.escape(bundle['text/plain'])}</pre>"

    def _name(self, k: int) -> str:
        return self.order[k].label or f"v{k}"

    def _record(self) -> list[Step]:
        """Run the walk from zero grads, snapshotting after each node; restore the grads."""
        order = self.order
        saved = [node.grad for node in order]
        last = len(order) - 1
        position = {node: k for k, node in enumerate(order)}
        steps = [Step(last, (0.0,) * last + (1.0,), f"seed: {self._name(last)}.grad = 1")]

        def snapshot(node: Any) -> None:
            k = position[node]
            before = steps[-1].grads
            grads = tuple(n.grad for n in order)
            if node.backward_rule is None:
                message = f"{self._name(k)} is a leaf: nothing to pass on, its grad {node.grad:.4g} is final"
            else:
                parents = sorted({position[p] for p in node.parents})
                added = ", ".join(f"{grads[j] - before[j]:.4g} to {self._name(j)}" for j in parents)
                message = f"{self._name(k)} ({node.op}) added {added}"
            steps.append(Step(k, grads, message))

        try:
            for node in order:
                node.grad = 0.0
            graph.backward(self.root, seed=1.0, interior_grad=0.0, after_each=snapshot)
        finally:
            for node, grad in zip(order, saved):
                node.grad = grad
        return steps


# -- progress of a training loop ------------------------------------------------


def progress(steps: int, desc: str) -> Iterator[int]:
    """``range(steps)`` with a progress bar labelled ``desc``.

    In a notebook the bar is a widget. It is displayed once and its display is
    updated when the loop ends, so a saved notebook shows the final "100%" even
    where widgets do not render (a viewer, nbval's text comparison), not the "0%"
    it had when first shown. Outside a notebook the bar is text on stderr.
    """
    from tqdm.auto import tqdm
    from tqdm.notebook import tqdm as notebook_tqdm

    if not issubclass(tqdm, notebook_tqdm):  # tqdm.auto picks a subclass in a notebook
        yield from tqdm(range(steps), desc=desc)
        return
    from IPython.display import display

    bar = tqdm(range(steps), desc=desc, display=False)
    shown = display(bar.container, display_id=True)
    try:
        yield from bar
    finally:  # also when the loop stops early
        shown.update(bar.container)
