"""The backward walk replayed one node at a time: ``BackwardStepper(root)``, for lesson 02.

Building a stepper runs the engine's own walk (``tinyad.graph.walk``) once and
keeps a snapshot of every node's grad after each step: nodes × nodes numbers, so a
graph of more than ``MAX_STEPPED_NODES`` nodes is refused. ``widget()`` shows it as
buttons (reset, previous, next), a line saying what the step did, and the graph
drawn with that step's grads: the node whose turn it is in gold, the nodes already
visited in grey. Step 0 is the seed, ``root.grad = 1``; step 1 runs the root's
rule; both are the root's turn, so both highlight it.

The widget's logic is plain methods (``next``, ``previous``, ``reset``), so tests
drive it by clicking its buttons. Stored in a notebook that has not run, the widget
says in words that running the cell brings it to life.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets

from tinyad import graph
from tinyad.course.viz.drawing import MAX_NODES, NO_PICTURE, Drawing, draw, sorted_nodes, without_picture
from tinyad.scalar.value import check_finite, check_gradients
from tinyad.validation import check_count

CURRENT_COLOUR = "gold"  # the node whose turn it is in this step
DONE_COLOUR = "lightgrey"  # nodes already visited: their grad is final
STORED_TEXT = "Backward stepper: run this cell to step through the walk"
# The snapshots hold one grad per node per step, nodes x (nodes + 1) numbers: about 8 MB at
# 1000 nodes, 1.8 GB at 15,000 (an unrolled RNN). A graph stepped through by hand is far
# smaller: lesson 02's diamond has 7 nodes, the XOR loss of MLP(2, [4, 1]) on 4 points 180.
MAX_STEPPED_NODES = 1000


@dataclass(frozen=True)
class Step:
    """One moment of the backward walk: the node whose turn it is and every grad after it."""

    position: int  # the node's position in topo_sort(root)
    grads: tuple[float, ...]  # every node's grad after this step, in topo_sort order
    message: str  # what happened, in words


class StepperView(widgets.VBox):
    """The stepper's box of widgets; its text form says how to bring a stored copy to life."""

    def __repr__(self) -> str:
        # A notebook stores this text beside the widget and shows it until the cell runs.
        return STORED_TEXT


class BackwardStepper:
    """The backward walk from ``root`` replayed one node at a time, for the lesson's widget.

    The walk starts from zero gradients everywhere (as on a fresh graph). The graph's
    own grads are put back afterwards, so building, stepping and drawing change
    nothing in the graph.
    """

    def __init__(self, root: Any, max_nodes: int = MAX_NODES) -> None:
        if not (graph.is_node(root) and isinstance(root.data, float)):
            raise TypeError(
                "BackwardStepper steps a graph of scalar Values (data a float), "
                f"got a root of type {type(root).__name__}"
            )
        check_count(max_nodes, "BackwardStepper's max_nodes")  # said now, not when the picture is drawn
        self.root = root
        self.max_nodes = max_nodes
        self.order: list = sorted_nodes(root, "BackwardStepper")
        if len(self.order) > MAX_STEPPED_NODES:
            raise ValueError(
                f"BackwardStepper steps a graph of at most {MAX_STEPPED_NODES} nodes (it keeps every "
                f"grad after every step), and this one has {len(self.order)}: step through a smaller "
                "graph (a few steps of an RNN, one example's loss), or call root.backward()"
            )
        # Every grad is put back after the walk: one that is not a number fails before it starts.
        check_gradients(root, "BackwardStepper")
        self.steps: list[Step] = self._record()
        self.position = 0  # the index into self.steps shown now
        self._ui: StepperView | None = None  # the widget, once built

    @property
    def current(self) -> Step:
        """The step shown now."""
        return self.steps[self.position]

    @property
    def node(self) -> Any:
        """The node highlighted now: the one whose turn it is."""
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
        visited = {self.order[s.position] for s in self.steps[1 : self.position + 1]}
        fills = {node: DONE_COLOUR for node in visited}
        fills[self.node] = CURRENT_COLOUR
        grads = dict(zip(self.order, self.current.grads))
        # The words name an unlabelled node by its place in the order ("v3"): the picture shows it.
        names = {node: self._name(k) for k, node in enumerate(self.order)
                 if not getattr(node, "label", "")}
        # A graph larger than max_nodes is drawn around the current node, so the picture follows the walk.
        return draw(self.root, max_nodes=self.max_nodes, fills=fills, grads=grads, names=names, focus=self.node)

    def _ipython_display_(self) -> None:
        """A stepper as a cell's last line shows its widget, as ``stepper.widget()`` does."""
        from IPython.display import display

        display(self.widget())

    def widget(self) -> StepperView:
        """Buttons (reset, previous, next), a line saying what happened, and the graph."""
        if self._ui is None:
            self.reset_button = widgets.Button(description="reset")
            self.previous_button = widgets.Button(description="previous")
            self.next_button = widgets.Button(description="next")
            self.reset_button.on_click(lambda _: self.reset())
            self.previous_button.on_click(lambda _: self.previous())
            self.next_button.on_click(lambda _: self.next())
            self.label = widgets.Label()
            self.picture = widgets.HTML()
            buttons = widgets.HBox([self.reset_button, self.previous_button, self.next_button])
            self._ui = StepperView([buttons, self.label, self.picture])
            self._show()
        return self._ui

    # -- helpers ------------------------------------------------------------

    def _go(self, position: int) -> None:
        self.position = position
        if self._ui is not None:
            self._show()

    def _show(self) -> None:
        """Redraw the widget for the current step: the picture first, then the words with it."""
        drawing = self.draw()
        try:
            _, svg = drawing.fitted()
        except NO_PICTURE as error:  # why, and the graph as text
            picture = f"<pre>{html.escape(without_picture(error, drawing.listing, drawing.source))}</pre>"
        else:  # inline, scaled down to the notebook's width when wider
            svg = svg[svg.find("<svg") :].replace("<svg ", '<svg style="max-width: 100%; height: auto" ', 1)
            picture = f"<div>{svg}</div>"
        last = len(self.steps) - 1
        self.label.value = f"step {self.position} of {last}: {self.current.message}"
        self.picture.value = picture
        self.previous_button.disabled = self.position == 0
        self.next_button.disabled = self.position == last

    def _name(self, k: int) -> str:
        return getattr(self.order[k], "label", "") or f"v{k}"  # a node of one's own may have none

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
                node.zero_grad()
            for node in graph.walk(self.root, 1.0):
                snapshot(node)
            check_finite([node for node in order if not node.parents])  # as backward() refuses an overflow
        except Exception as error:  # a rule that raised: say whose (Python 3.11's notes; 3.10 has none)
            k = len(steps)  # the step whose turn it was: step 0 is the seed, step 1 the root's rule
            if k <= len(order) and hasattr(error, "add_note"):
                turn = len(order) - k
                error.add_note(f"BackwardStepper: raised by the backward rule of {self._name(turn)} "
                               f"({order[turn].op}), at step {k} of the walk")
            raise
        finally:
            for node, grad in zip(order, saved):  # put the graph's own gradients back
                node.zero_grad()
                node.accumulate(grad)
        return steps
