"""A picture of the computation graph: ``draw(root)``.

``draw(root)`` turns the graph behind ``root`` into a ``Drawing``, a
``graphviz.Digraph``: a record node per value (its label, data and grad) and a
small node per operation between the operation's inputs and its output, laid out
left to right. Nodes are named by their position in ``topo_sort(root)`` (``v0``,
``v1``, ...), so the same graph gives the same DOT source on every run.

Any graph node (``tinyad.graph.is_node``) can be drawn, ``label`` shown if it has
one: a ``Value`` shows its numbers, and so does a node whose data is a 0-d array
(``t.sum()``); one whose data has axes shows its shape.

A graph with more than ``max_nodes`` values (80 by default, at most ``MAX_DRAWN``) is
drawn in part: the ``max_nodes`` values nearest the root, counted in edges (or nearest
``focus``, a node of the graph: the backward stepper's current node). A small "..." feeds
each operation whose inputs were left out, and one note says how many they are. A graph
of thousands of values is no picture to read, and Graphviz takes minutes to lay it out:
``max_nodes`` beyond ``MAX_DRAWN`` is refused.

In a notebook a drawing displays as SVG with a PNG beside it: JupyterLab refuses
SVG in a notebook it does not trust (a fresh clone), and notebook viewers may too,
but they show the PNG. A picture wider than ``FIT_WIDTH`` pixels (about a notebook
column) is scaled down to it; but a graph that left to right would have to shrink
much more than top to bottom (a long chain, whose text would become unreadable) is
laid out top to bottom instead.

Without the Graphviz ``dot`` program a drawing still displays in a notebook: a hint how
to install Graphviz, a table of the values it would draw, one line each, each after its inputs
(``listing``: the numbers, readable at a glance), then its DOT text (``.source``), which
Graphviz would draw. The hint is shown whole once in a session and in two lines after
that, in lines of at most ``HINT_WIDTH`` characters, so that no notebook column breaks a
word of it.
"""

from __future__ import annotations

import base64
import re
from collections import deque
from typing import Any, Iterator, Mapping, NamedTuple

import graphviz

from tinyad.graph import is_node, topo_sort
from tinyad.scalar.value import Value, check_parents
from tinyad.tensor.tensor import Tensor, check_parents as check_tensor_parents
from tinyad.validation import check_count

MAX_NODES = 80
MAX_DRAWN = 1000  # Graphviz lays out 4,000 values in about 25 s, 12,000 in minutes
NODE_STYLE = {"fontsize": "10"}
FIT_WIDTH = 800  # pixels: about a notebook column's width in JupyterLab

# Short lines, broken between words: a notebook shows text output in a column of about 80
# characters and breaks a longer line wherever the column ends, even inside a word.
HINT_WIDTH = 76
INSTALL_HINT = (
    "Graphviz's 'dot' program was not found, so the graph is listed as text.\n"
    "To see the picture, install Graphviz itself (pip's graphviz is only the\n"
    "Python side) with one of these, then restart the kernel:\n"
    "    apt install graphviz\n"
    "    conda install -c conda-forge graphviz\n"
    "    brew install graphviz\n"
    "    winget install graphviz"
)
# After the first drawing of a session, two lines: the whole hint again on every drawing is noise.
INSTALL_HINT_AGAIN = (
    "Graphviz's 'dot' program was not found, so the graph is listed as text.\n"
    "To draw it: apt, brew or winget install graphviz, then restart the kernel."
)
_hint_shown = False


class Drawing(graphviz.Digraph):
    """A graph drawing that displays as SVG + PNG, fitted to the notebook's width.

    ``summary`` is its text form: what a notebook shows beside an image. ``listing`` is the summary
    and a table of the values drawn, shown (with the DOT text) where ``dot`` gives no image.
    ``top_to_bottom``, if given, is the same graph laid out top to bottom, shown
    instead when this one is too wide (see ``fitted``).
    """

    def __init__(self, summary: str, top_to_bottom: graphviz.Digraph | None = None, listing: str = "",
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.summary = summary
        self.top_to_bottom = top_to_bottom
        self.listing = listing or summary  # the values as a table, shown where dot gives no picture

    def __repr__(self) -> str:
        return f"<{self.summary}; its DOT text is in .source>"

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, **kwargs: Any
    ) -> tuple[dict, dict]:
        """The display data and its metadata, as IPython takes them."""
        try:
            picture, svg = self.fitted()
        except NO_PICTURE as error:
            return {"text/plain": without_picture(error, self.listing, self.source)}, {}
        bundle = {"text/plain": repr(self), "image/svg+xml": svg}
        try:
            png = base64.b64encode(picture.pipe(format="png")).decode("ascii")
        except graphviz.CalledProcessError:  # a Graphviz built without PNG output: the SVG alone
            return bundle, {}
        # Shown at the (fitted) SVG's size: JupyterLab scales a PNG down further when the
        # cell is narrower, an SVG it shows at its size. The PNG is drawn at 96 dpi, one
        # pixel per CSS pixel before fitting, so it is never shown larger than it was drawn.
        width, height = svg_size(svg)
        bundle["image/png"] = png
        return bundle, {"image/png": {"width": width, "height": height}}

    def fitted(self) -> tuple[graphviz.Digraph, str]:
        """The graph to show and its SVG, at most ``FIT_WIDTH`` pixels wide.

        This graph; or, when it is wider than ``FIT_WIDTH``, the top-to-bottom layout if
        that needs much less scaling down to fit. The SVG says its scaled size.
        """
        svg = self.pipe(format="svg", encoding="utf-8")
        wide, _ = svg_size(svg)
        if wide <= FIT_WIDTH or self.top_to_bottom is None:
            return self, _scaled_to_fit(svg)
        tall_svg = self.top_to_bottom.pipe(format="svg", encoding="utf-8")
        narrow, _ = svg_size(tall_svg)
        # Text shrinks with the picture: turn only for a clear gain in its size on screen.
        if min(1.0, FIT_WIDTH / narrow) > 1.25 * FIT_WIDTH / wide:
            return self.top_to_bottom, _scaled_to_fit(tall_svg)
        return self, _scaled_to_fit(svg)


# Where dot gives no picture: not installed, failed, or a file named dot that cannot be run.
NO_PICTURE = (graphviz.ExecutableNotFound, graphviz.CalledProcessError, OSError)

SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


def svg_size(svg: str) -> tuple[int, int]:
    """The width and height of a Graphviz SVG in CSS pixels (Graphviz writes points)."""
    match = SIZE.search(svg)
    if match is None:
        raise ValueError("no width and height in points at the start of this SVG")
    return tuple(round(float(size) * 96 / 72) for size in match.groups())


def _scaled_to_fit(svg: str) -> str:
    """The SVG with its width and height scaled down to ``FIT_WIDTH`` pixels wide, if wider.

    Its ``viewBox`` stays, so the whole drawing scales with them.
    """
    width, height = (float(size) for size in SIZE.search(svg).groups())
    scale = FIT_WIDTH * 72 / 96 / width
    if scale >= 1:
        return svg
    return SIZE.sub(f'<svg width="{width * scale:.2f}pt" height="{height * scale:.2f}pt"', svg, count=1)


def sorted_nodes(root: Any, who: str) -> list:
    """``topo_sort(root)``; for a graph of Values made by hand with a parent that is not a Value
    (a number, None), or of Tensors whose parents were set by hand, the error that names that node,
    as ``backward`` gives it."""
    try:
        return topo_sort(root)
    except (AttributeError, TypeError):
        if isinstance(root, Value):
            check_parents(root, who)
        elif isinstance(root, Tensor):
            check_tensor_parents(root, who)
        raise


def without_picture(error: Exception, listing: str, source: str) -> str:
    """What is shown where ``dot`` gives no picture: why (no dot program, with how to install one;
    or a dot that ran and failed, with the first line it said), the values as a table, then the
    graph's DOT text."""
    global _hint_shown
    text = f"{listing}\n\nIts DOT text, which Graphviz draws:\n{source}"
    if isinstance(error, graphviz.ExecutableNotFound):
        hint = INSTALL_HINT_AGAIN if _hint_shown else INSTALL_HINT
        _hint_shown = True
        return f"{hint}\n\n{text}"
    said = (getattr(error, "stderr", b"") or b"")
    said = said.decode(errors="replace") if isinstance(said, bytes) else str(said)
    if isinstance(error, OSError) and error.strerror:  # a dot that cannot be run: "Permission denied: dot"
        said = f"{error.strerror}: {error.filename}"
    first = said.strip().splitlines()[0] if said.strip() else str(error)
    return f"The Graphviz dot program failed to draw this graph ({first}); here it is as text:\n\n{text}"


def draw(root: Any, max_nodes: int = MAX_NODES, fills: Mapping[Any, str] | None = None,
         grads: Mapping[Any, Any] | None = None, names: Mapping[Any, str] | None = None,
         focus: Any = None) -> Drawing:
    """The graph behind ``root`` as a Graphviz drawing: one record per value, one node per op.

    ``fills`` maps nodes to a fill colour, and ``grads`` to the gradient shown instead of the
    node's own (the backward stepper shows each step of a walk so, leaving the graph alone);
    ``names`` maps unlabelled nodes to a name shown where a label would be (the stepper's words
    name every node, "v3" for one without a label); ``focus``, the node whose neighbours a graph
    larger than ``max_nodes`` keeps (the root unless given).
    """
    if not is_node(root):
        raise TypeError(
            f"draw() needs a graph node (a Value or a Tensor), got {type(root).__name__}"
        )
    check_count(max_nodes, "draw()'s max_nodes")
    order = sorted_nodes(root, "draw()")
    if min(max_nodes, len(order)) > MAX_DRAWN:
        raise ValueError(
            f"draw() draws at most {MAX_DRAWN} values (max_nodes={max_nodes}): a picture of more is no "
            "picture to read, and Graphviz takes minutes to lay it out. Draw a smaller graph, one "
            "example's loss say, or a part of this one (the default max_nodes keeps the values nearest "
            "the output)"
        )
    if focus is not None and not any(node is focus for node in order):
        raise ValueError(f"draw()'s focus must be a node of the graph it draws, got {type(focus).__name__} "
                         f"{focus!r:.60}")
    kept = _nearest(order, root if focus is None else focus, max_nodes)
    operations = sum(1 for node in order if id(node) in kept and node.parents)
    name = getattr(root, "label", "") or "its output"
    near = "the output" if focus is None or focus is root else "the current node"
    shown = (_count(len(order), "value") if len(kept) == len(order)
             else f"{len(kept)} of its {len(order)} values (those nearest {near})")
    summary = f"tinyad drawing: the graph of {name}, {shown} and {_count(operations, 'operation')}"

    fills, grads, names = fills or {}, grads or {}, names or {}
    tall = _add_graph(graphviz.Digraph(graph_attr={"rankdir": "TB"}, node_attr=NODE_STYLE), order, kept,
                      fills, grads, names)
    if _released(root):
        summary += "; backward() released the graph behind it (retain_graph=True keeps it)"
    listing = f"{summary}\n{_listing(order, kept, fills, grads, names)}"
    return _add_graph(Drawing(summary, tall, listing, graph_attr={"rankdir": "LR"}, node_attr=NODE_STYLE),
                      order, kept, fills, grads, names)


def _released(node: Any) -> bool:
    """Whether ``node`` is an op's output whose parents backward let go of (a Tensor's, after a walk
    without ``retain_graph``): it keeps its op and a rule, but no parents. A leaf has no rule."""
    return bool(getattr(node, "op", "")) and not node.parents and node.backward_rule is not None


def _count(n: int, thing: str) -> str:
    """``n`` things, in words: "1 value", "3 values"."""
    return f"{n} {thing}{'' if n == 1 else 's'}"


def _nearest(order: list, centre: Any, most: int) -> set[int]:
    """The ids of the ``most`` nodes of ``order`` nearest ``centre``, counted in edges: breadth
    first, up through its inputs and their inputs, and down through the nodes that use it and
    theirs, then up from the root as far as room is left. A path never turns (up, then down a
    weight's other use), so every node kept is joined to ``centre`` or to the root in the
    picture: from the root, each kept node feeds it."""
    if len(order) <= most:
        return {id(node) for node in order}
    users: dict[int, list] = {}
    for node in order:
        for parent in node.parents:
            users.setdefault(id(parent), []).append(node)
    root = order[-1]
    kept = {id(centre)} | ({id(root)} if most > 1 else set())  # never more than most
    queue = deque([(centre, "up"), (centre, "down"), (root, "up")])
    while queue and len(kept) < most:
        node, way = queue.popleft()
        for neighbour in node.parents if way == "up" else users.get(id(node), ()):
            if id(neighbour) not in kept and len(kept) < most:
                kept.add(id(neighbour))
                queue.append((neighbour, way))
    return kept


class _ShownValue(NamedTuple):
    """One value a drawing keeps, with what its picture and its table both say of it."""

    k: int  # its place in the order: it is v{k}
    node: Any
    name: Any  # its label, or the name it is given ("" for neither): the picture and the table each write it
    grad: Any  # the gradient shown: the one given for it in grads, or its own
    fill: str | None
    inputs: tuple[int | None, ...]  # each input's place in the order; None for one further away, not shown
    released: bool  # an op's output whose inputs backward let go of


def _shown_values(order: list, kept: set[int], fills: Mapping[Any, str], grads: Mapping[Any, Any],
                  names: Mapping[Any, str]) -> Iterator[_ShownValue]:
    """The values of ``order`` whose ids are ``kept``, in that order (each after its inputs)."""
    position = {id(node): k for k, node in enumerate(order)}
    for k, node in enumerate(order):
        if id(node) not in kept:
            continue
        yield _ShownValue(k, node, getattr(node, "label", "") or names.get(node, ""),
                          grads[node] if node in grads else node.grad, fills.get(node),
                          tuple(position[id(p)] if id(p) in kept else None for p in node.parents), _released(node))


def _add_graph(dot: graphviz.Digraph, order: list, kept: set[int], fills: Mapping[Any, str],
               grads: Mapping[Any, Any], names: Mapping[Any, str]) -> graphviz.Digraph:
    """Add the values of ``order`` whose ids are ``kept``, their ops and edges to ``dot``; return it."""
    left_out = len(order) - len(kept)
    if left_out:
        dot.node("omitted", f"{_count(left_out, 'value')} further away not drawn; ... marks where they "
                 "feed in", shape="note")
    flipped = dot.graph_attr["rankdir"] == "TB"
    for value in _shown_values(order, kept, fills, grads, names):
        k, node = value.k, value.node
        colour = {} if value.fill is None else {"style": "filled", "fillcolor": value.fill}
        dot.node(f"v{k}", _record(value, flipped), shape="record", **colour)
        if not value.inputs:
            if value.released:
                dot.node(f"v{k}_op", graphviz.escape(f"{node.op}: its inputs were released by backward(); draw "
                                                     "before backward, or call backward(retain_graph=True)"),
                         shape="note")
                dot.edge(f"v{k}_op", f"v{k}", style="dashed")
            continue
        op_name = f"v{k}_op"
        # escape: an op's name is text, never an HTML label (<b>) or a Graphviz escape (a \ at the end)
        dot.node(op_name, graphviz.escape(node.op or "?"), shape="ellipse", width="0.3", height="0.3")
        dot.edge(op_name, f"v{k}")
        omitted_parent = False
        for j in value.inputs:
            if j is not None:
                dot.edge(f"v{j}", op_name)
            elif not omitted_parent:  # one stub beside the op, not an edge from afar
                omitted_parent = True
                dot.node(f"v{k}_earlier", "...", shape="plaintext")
                dot.edge(f"v{k}_earlier", op_name, style="dashed")
    return dot


NAME_WIDTH = 24  # a table's names, cut to this: a long label would widen every line


def _listing(order: list, kept: set[int], fills: Mapping[Any, str], grads: Mapping[Any, Any],
             names: Mapping[Any, str]) -> str:
    """The values of ``order`` whose ids are ``kept`` as a table, one line each after its inputs: the
    value's name (its label, a name it is given, or ``v3`` for the fourth of the order), data, grad,
    the op that made it and from which values, and its fill colour if it has one."""
    rows = [("value", "data", "grad", "made by")]
    short_names: dict[int, str] = {}  # each value's name in the table, by its place: its inputs come first
    for value in _shown_values(order, kept, fills, grads, names):
        node = value.node
        name = " ".join(str(value.name).split())  # one short line of text, whatever the label (a number, a newline)
        if len(name) > NAME_WIDTH:
            name = name[:NAME_WIDTH - 3] + "..."
        short_names[value.k] = name or f"v{value.k}"  # a label of spaces alone names nothing
        if value.inputs:
            inputs = ", ".join("..." if j is None else short_names[j] for j in value.inputs)
            made_by = f"{node.op or '?'} of {inputs}"
        else:
            made_by = f"{node.op}, its inputs released by backward()" if value.released else "(an input)"
        if value.fill is not None:
            made_by += f"   [{value.fill}]"
        rows.append((short_names[value.k], _show(node.data), _show(value.grad), made_by))
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    lines = ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)) + "  " + row[3] for row in rows]
    left_out = len(order) - len(kept)
    if left_out:
        lines.append(f"({_count(left_out, 'value')} further away not listed; ... marks where they feed in)")
    return "\n".join(line.rstrip() for line in lines)


def _record(value: _ShownValue, flipped: bool) -> str:
    """A value's record label, ``name | data ... | grad ...`` (its name left out if it has none).

    Graphviz lays a record's fields across the rank direction, and ``{...}`` flips them:
    ``flipped`` (for top to bottom) keeps the fields stacked one above the other there too.
    """
    fields = [f"data {_show(value.node.data)}", f"grad {_show(value.grad)}"]
    if value.name:
        fields.insert(0, str(value.name))
    text = " | ".join(_escape(field) for field in fields)
    return "{" + text + "}" if flipped else text


def _show(x: Any) -> str:
    """A number to 4 significant digits; an array by its shape; ``None`` as is."""
    if x is None:
        return "None"
    shape = getattr(x, "shape", ())
    if shape != ():
        return f"shape {tuple(shape)}"
    return f"{float(x) + 0.0:.4g}"  # + 0.0 turns -0.0 into 0.0: "grad -0" would only puzzle


def _escape(text: str) -> str:
    """Escape the characters that structure a Graphviz record label; a newline stays a line break
    (Graphviz's ``\\n``: a newline itself is dropped)."""
    for char in "\\{}|<>":
        text = text.replace(char, "\\" + char)
    return text.replace("\n", "\\n")
