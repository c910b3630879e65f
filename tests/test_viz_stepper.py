"""BackwardStepper: the backward walk replayed node by node, driven through its widget's buttons."""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

from tinyad import Tensor, Value, topo_sort
from tinyad.course.viz import BackwardStepper, draw
from tinyad.course.viz.drawing import INSTALL_HINT, INSTALL_HINT_AGAIN
from tinyad.course.viz.stepper import CURRENT_COLOUR, DONE_COLOUR, STORED_TEXT

from dot_program import needs_dot  # tests/dot_program.py

# A node in Graphviz's SVG: its name (the title), then its outline with the fill colour.
SVG_NODE = re.compile(r'<g id="node\d+" class="node">\s*<title>(\w+)</title>\s*<polygon fill="(\w+)"')


def shared_graph() -> Value:
    """L = (h + a*a) * (h * x) with h = tanh(x * a): h feeds two nodes, a * a uses a twice."""
    x, a = Value(1.5, "x"), Value(-0.5, "a")
    h = (x * a).tanh()
    h.label = "h"
    s = a * a
    s.label = "s"
    p = h + s
    p.label = "p"
    q = h * x
    q.label = "q"
    L = p * q
    L.label = "L"
    return L


def reference_grads() -> list[float]:
    """Every node's grad after Value.backward on a fresh copy, in topo_sort order."""
    root = shared_graph()
    root.backward()
    return [node.grad for node in topo_sort(root)]


def highlighted(stepper: BackwardStepper) -> list[str]:
    """The names of the nodes drawn in the current-node colour."""
    return [
        line.split()[0]
        for line in stepper.draw().body
        if f"fillcolor={CURRENT_COLOUR}" in line
    ]


def test_next_visits_every_node_in_reverse_topological_order_and_ends_at_backwards_grads():
    root = shared_graph()
    order = topo_sort(root)
    stepper = BackwardStepper(root)
    stepper.widget()
    assert stepper.order == order
    assert len(stepper.steps) == len(order) + 1  # the seed, then one step per node

    # Step 0: the seed. Only the root has a gradient.
    assert stepper.node is root
    assert stepper.current.grads == (0.0,) * (len(order) - 1) + (1.0,)
    assert stepper.label.value.startswith(f"step 0 of {len(order)}: seed")
    assert stepper.previous_button.disabled and not stepper.next_button.disabled

    final = reference_grads()
    for k in reversed(range(len(order))):
        stepper.next_button.click()
        assert stepper.node is order[k]
        assert stepper.current.position == k
        assert highlighted(stepper) == [f"v{k}"]
        assert order[k].label in stepper.label.value
        # A node is visited only once every node that uses it has run: its grad is final.
        assert stepper.current.grads[k] == pytest.approx(final[k], rel=1e-12, abs=1e-15)
    assert stepper.current.grads == pytest.approx(tuple(final), rel=1e-12, abs=1e-15)
    assert stepper.next_button.disabled

    # The drawing shows the final grads, to four digits.
    source = stepper.draw().source
    for node, grad in zip(order, final):
        assert f"grad {grad:.4g}" in source, node.label


def test_a_node_with_two_consumers_collects_its_grad_in_two_parts():
    root = shared_graph()
    stepper = BackwardStepper(root)
    k = next(i for i, node in enumerate(stepper.order) if node.label == "h")
    grads_of_h = [step.grads[k] for step in stepper.steps]
    nonzero_changes = {b for a, b in zip(grads_of_h, grads_of_h[1:]) if b != a}
    assert len(nonzero_changes) == 2  # one part from p, one from q
    assert grads_of_h[-1] == pytest.approx(reference_grads()[k])


def test_messages_say_what_each_rule_added():
    a = Value(3.0, "a")
    b = a + a
    b.label = "b"
    c = b * b
    c.label = "c"
    messages = [step.message for step in BackwardStepper(c).steps]
    assert messages == [
        "seed: c.grad = 1",
        "c (*) added 12 to b",  # b is used twice by *: 6 + 6, summed over both uses
        "b (+) added 24 to a",  # c = (2a)**2, dc/da = 8a = 24
        "a is a leaf: nothing to pass on, its grad 24 is final",
    ]
    unlabelled = Value(2.0) * Value(4.0)
    assert BackwardStepper(unlabelled).steps[1].message == "v2 (*) added 4 to v0, 2 to v1"
    # A second rule adds to a grad that already holds the first's: the words give what it added.
    x, k = Value(2.0, "x"), Value(3.0, "k")
    p = x * k
    p.label = "p"
    total = p + x
    total.label = "L"
    messages = [step.message for step in BackwardStepper(total).steps]
    assert messages[1:3] == ["L (+) added 1 to x, 1 to p", "p (*) added 3 to x, 2 to k"]


def test_previous_and_reset_go_back_and_the_ends_are_safe():
    root = shared_graph()
    stepper = BackwardStepper(root)
    stepper.widget()
    start_label, start_picture = stepper.label.value, stepper.picture.value

    stepper.previous_button.click()  # at the seed already: nothing happens
    assert stepper.position == 0 and stepper.label.value == start_label

    for _ in range(3):
        stepper.next_button.click()
    third = stepper.current
    stepper.next_button.click()
    stepper.previous_button.click()
    assert stepper.position == 3 and stepper.current == third
    assert stepper.label.value.startswith("step 3 of")

    stepper.reset_button.click()
    assert stepper.position == 0
    assert stepper.label.value == start_label and stepper.picture.value == start_picture

    for _ in range(len(stepper.steps) + 5):  # past the end: stays at the last step
        stepper.next_button.click()
    assert stepper.position == len(stepper.steps) - 1


def test_the_graph_keeps_its_own_grads():
    root = shared_graph()
    root.backward()
    root.backward()  # leaves accumulate: their grads are now twice the reference
    before = [node.grad for node in topo_sort(root)]
    stepper = BackwardStepper(root)
    stepper.widget()
    for _ in range(4):
        stepper.next()
    stepper.draw()
    assert [node.grad for node in topo_sort(root)] == before
    # The stepper's own walk starts from zero grads, so it ends at one backward's worth.
    assert stepper.steps[-1].grads == pytest.approx(tuple(reference_grads()))


def test_visited_nodes_are_shaded():
    stepper = BackwardStepper(shared_graph())
    for _ in range(3):
        stepper.next()
    last = len(stepper.order) - 1
    shaded = {line.split()[0] for line in stepper.draw().body if f"fillcolor={DONE_COLOUR}" in line}
    visited_before = {stepper.steps[1].position, stepper.steps[2].position}
    assert shaded == {f"v{k}" for k in visited_before - {stepper.current.position}}
    assert f"v{last}" in shaded  # the root was visited in step 1


def highlighted_in_picture(stepper: BackwardStepper) -> list[str]:
    """The names of the nodes the widget's picture (its SVG) fills in the current-node colour."""
    return [name for name, fill in SVG_NODE.findall(stepper.picture.value) if fill == CURRENT_COLOUR]


@needs_dot
def test_with_dot_the_picture_is_svg_scaled_to_the_width():
    stepper = BackwardStepper(shared_graph())
    stepper.widget()
    picture = stepper.picture.value
    # Inline SVG, scaled down to the notebook's width when wider.
    assert picture.startswith('<div><svg style="max-width: 100%; height: auto" ') and picture.endswith("</svg>\n</div>")
    stepper.next_button.click()
    assert "grad 1" in html.unescape(stepper.picture.value)


@needs_dot
def test_the_seed_and_the_roots_rule_highlight_the_root_and_then_each_node_its_own_turn():
    u, v = Value(2.0, "u"), Value(3.0, "v")
    L = u + v
    L.label = "L"
    stepper = BackwardStepper(L)
    stepper.widget()
    for _ in range(2):
        stepper.next_button.click()
    stepper.reset_button.click()
    assert stepper.label.value == "step 0 of 3: seed: L.grad = 1"
    assert highlighted_in_picture(stepper) == ["v2"]
    stepper.next_button.click()
    assert stepper.label.value == "step 1 of 3: L (+) added 1 to u, 1 to v"
    assert highlighted_in_picture(stepper) == ["v2"]  # the same node: its rule runs now
    stepper.next_button.click()
    assert stepper.label.value.startswith("step 2 of 3: v is a leaf")
    assert highlighted_in_picture(stepper) == ["v1"]
    stepper.previous_button.click()
    assert highlighted_in_picture(stepper) == ["v2"]


def test_a_stored_stepper_says_that_running_the_cell_brings_it_to_life():
    ui = BackwardStepper(shared_graph()).widget()
    assert repr(ui) == STORED_TEXT
    assert ui._repr_mimebundle_()["text/plain"] == STORED_TEXT  # what a notebook stores
    assert "application/vnd.jupyter.widget-view+json" in ui._repr_mimebundle_()


def test_without_dot_the_widget_lists_the_values_under_the_hint(no_dot):
    stepper = BackwardStepper(shared_graph())
    stepper.widget()
    assert html.escape(INSTALL_HINT) in stepper.picture.value  # the whole hint, the first time
    for _ in range(len(stepper.steps)):
        stepper.next_button.click()
        picture = html.unescape(stepper.picture.value)
        assert picture.startswith("<pre>" + INSTALL_HINT_AGAIN) and "digraph" in picture
        current = stepper._name(stepper.current.position)  # the stepper's words name the same node
        assert re.search(rf"\n{re.escape(current)} [^\n]*\[{CURRENT_COLOUR}\]", picture), picture
    stepper.reset_button.click()
    assert stepper.label.value.startswith("step 0 of")


def test_a_root_that_is_not_a_scalar_value_is_refused():
    for root, kind in [(1.5, "float"), (Tensor(np.ones(2)).sum(), "Tensor")]:
        refused = f"^BackwardStepper steps a graph of scalar Values .*got a root of type {kind}$"
        with pytest.raises(TypeError, match=refused):
            BackwardStepper(root)


@pytest.mark.parametrize("max_nodes", [0, 2.5, True])
def test_a_bad_max_nodes_is_named_when_the_stepper_is_made(max_nodes):
    with pytest.raises(ValueError, match=rf"^BackwardStepper's max_nodes must be an int >= 1, got {max_nodes!r}$"):
        BackwardStepper(shared_graph(), max_nodes=max_nodes)


def test_the_stepper_records_the_engines_own_walk(walk_calls):
    # One walk in tinyad: the stepper watches tinyad.graph.walk, it does not replay its own.
    L = shared_graph()
    stepper = BackwardStepper(L)
    assert walk_calls == [L]
    assert len(stepper.steps) == len(topo_sort(L)) + 1


def chain_of(n: int) -> Value:
    """tanh(tanh(... tanh(x))): n nodes in a line."""
    v = Value(0.5, "x")
    for _ in range(n - 1):
        v = v.tanh()
    return v


def test_a_graph_too_large_to_keep_every_step_of_is_refused_with_its_size():
    # Every step's snapshot holds every grad: an unrolled RNN of 15,000 nodes took 1.8 GB.
    from tinyad.course.viz.stepper import MAX_STEPPED_NODES

    largest = chain_of(MAX_STEPPED_NODES)
    assert len(BackwardStepper(largest).steps) == MAX_STEPPED_NODES + 1
    with pytest.raises(ValueError, match=rf"at most {MAX_STEPPED_NODES} nodes .* this one has {MAX_STEPPED_NODES + 1}"):
        BackwardStepper(largest.tanh())


@pytest.mark.parametrize("label, error", [
    ("a", r"BackwardStepper: the leaf labelled 'a' has grad = None"),  # a leaf, cleared PyTorch's way
    ("h", r"BackwardStepper: the 'tanh' node labelled 'h' has grad = None"),  # an interior node set by hand
])
def test_a_grad_set_to_none_is_named_and_the_graph_keeps_its_grads(label, error):
    # The walk's += (or putting None back afterwards) failed with Python's bare TypeError, and
    # left the graph's grads changed: None had become 0.0.
    root = shared_graph()
    root.backward()
    nodes = topo_sort(root)
    next(n for n in nodes if n.label == label).grad = None
    before = [n.grad for n in nodes]
    with pytest.raises(TypeError, match=error):
        BackwardStepper(root)
    assert [n.grad for n in nodes] == before


def test_the_picture_names_an_unlabelled_node_as_the_words_do():
    # The words said "added ... to v1" of a node the picture showed without a name.
    a, b = Value(2.0, "a"), Value(3.0)
    y = (a * b).tanh()
    y.label = "y"
    stepper = BackwardStepper(y)
    stepper.next()
    stepper.next()
    assert stepper.current.message.endswith("to v1")
    source = stepper.draw().source
    assert 'v1 [label="v1 | data 3 |' in source
    assert 'v0 [label="a | data 2 |' in source  # a label stays the node's own
    assert "v1 |" not in draw(y).source  # a plain drawing names no unlabelled node


def test_a_node_of_ones_own_without_a_label_is_stepped_and_drawn():
    # Lesson 02's own Node has no label (tinyad.graph.Node does not ask for one): the stepper
    # raised AttributeError where draw() got on.
    from test_grading import Node  # a node of one's own, as lesson 02's exercise has learners write

    def rule(out):
        a, b = out.parents
        a.accumulate(b.data * out.grad)
        b.accumulate(a.data * out.grad)

    stepper = BackwardStepper(Node(6.0, (Node(2.0), Node(3.0)), rule))
    assert stepper.current.message == "seed: v2.grad = 1"
    stepper.next()
    assert "v0" in stepper.current.message and "v1" in stepper.current.message, stepper.current.message
    assert "v2" in stepper.draw().source


def test_the_picture_follows_the_walk_past_the_nodes_drawn_first():
    # The picture kept the same 80 nodes: from step 81 of a larger graph no node was gold, and the
    # words named nodes it did not show.
    stepper = BackwardStepper(chain_of(200))
    assert len(stepper.order) > 2 * 80
    for _ in range(150):
        stepper.next()
    source = stepper.draw().source
    assert f"fillcolor={CURRENT_COLOUR}" in source and "(those nearest the current node)" in stepper.draw().summary


def test_a_rule_that_raises_is_named_by_the_stepper():
    a, b = Value(2.0, "a"), Value(3.0, "b")

    def broken(out):
        raise ZeroDivisionError("a rule of one's own")

    d = Value(a.data * b.data, "d", (a, b), "*", broken)
    with pytest.raises(ZeroDivisionError, match="a rule of one's own") as raised:
        BackwardStepper(d * 2)
    if hasattr(raised.value, "add_note"):  # Python 3.11's notes
        assert raised.value.__notes__ == [
            "BackwardStepper: raised by the backward rule of d (*), at step 3 of the walk"]
    assert (a.grad, b.grad) == (0.0, 0.0)  # the graph keeps its own grads


def test_a_stepper_as_a_cells_last_line_shows_its_widget(monkeypatch):
    import IPython.display

    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda *things: shown.extend(things))
    stepper = BackwardStepper(Value(2.0, "a") * Value(3.0, "b"))
    stepper._ipython_display_()  # what IPython calls for a cell's last value
    assert shown == [stepper.widget()]


def test_a_gradient_that_overflows_is_refused_by_the_stepper_as_by_backward():
    # The stepper drew "-inf to b" and stepped on, where backward() refuses the overflow.
    quotient = Value(1e100, "n") / Value(1e-200, "b")
    with pytest.raises(OverflowError, match=r"the gradient at the leaf labelled 'b' overflows") as raised:
        BackwardStepper(quotient)
    assert not getattr(raised.value, "__notes__", []), "every rule ran: no rule raised it"
    with pytest.raises(OverflowError, match=r"the gradient at the leaf labelled 'b' overflows"):
        quotient.backward()
