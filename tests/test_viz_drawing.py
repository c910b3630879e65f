"""draw(): the nodes and edges it makes, stable names, large graphs, its display, and life without dot."""

from __future__ import annotations

import base64
import os
import re

import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter

from tinyad import Tensor, Value, draw, topo_sort
from tinyad.course.viz import BackwardStepper
from tinyad.course.viz.drawing import FIT_WIDTH, HINT_WIDTH, INSTALL_HINT, INSTALL_HINT_AGAIN, MAX_NODES, svg_size

from dot_program import needs_dot  # tests/dot_program.py


RECORD = re.compile(r"^\s*(v\d+) \[label=\".*shape=record\]$", re.M)
OP = re.compile(r"^\s*(v\d+_op) \[label=(\S+) ", re.M)
EDGE = re.compile(r"^\s*(\w+) -> (\w+)", re.M)


def seed_example() -> Value:
    """tanh(w1*x1 + w2*x2) with w = [0.5, -0.5], x = [1, 2], after backward."""
    w1, w2 = Value(0.5, "w1"), Value(-0.5, "w2")
    x1, x2 = Value(1.0, "x1"), Value(2.0, "x2")
    y = (w1 * x1 + w2 * x2).tanh()
    y.label = "y"
    y.backward()
    return y


def test_a_record_per_value_and_a_node_per_op():
    source = draw(seed_example()).source
    assert len(RECORD.findall(source)) == 8  # 4 leaves, 2 products, 1 sum, tanh
    assert sorted(label for _, label in OP.findall(source)) == ['"*"', '"*"', '"+"', "tanh"]
    edges = EDGE.findall(source)
    # Each op: one edge per input into it, one edge out to its value.
    assert len(edges) == 2 + 1 + 2 + 1 + 2 + 1 + 1 + 1
    # The tanh node sits between the sum and the output (the root is last in topo order).
    assert ("v6", "v7_op") in edges and ("v7_op", "v7") in edges
    assert "rankdir=LR" in source


def test_records_show_label_data_and_grad_to_four_digits():
    source = draw(seed_example()).source
    assert '"y | data -0.4621 | grad 1"' in source
    assert '"w2 | data -0.5 | grad 1.573"' in source  # x2 * tanh' = 2 * 0.7864...
    # Top to bottom, braces keep the fields stacked (Graphviz lays them across the ranks).
    assert '"{y | data -0.4621 | grad 1}"' in draw(seed_example()).top_to_bottom.source


def test_source_is_the_same_for_two_builds_of_the_same_graph():
    assert draw(seed_example()).source == draw(seed_example()).source


def test_a_shared_input_draws_once_with_two_edges():
    a = Value(3.0, "a")
    source = draw(a + a).source
    assert len(RECORD.findall(source)) == 2
    assert EDGE.findall(source).count(("v0", "v1_op")) == 2


def test_a_large_graph_is_drawn_in_part_with_a_note():
    x = Value(0.1, "x")
    y = x
    for _ in range(1000):
        y = (y * 0.5).tanh()
    total = len(topo_sort(y))
    source = draw(y).source
    records = RECORD.findall(source)
    assert len(records) == MAX_NODES == 80
    assert records[-1] == f"v{total - 1}"  # the root is always drawn
    assert f"{total - MAX_NODES} values further away not drawn" in source
    assert len(draw(y, max_nodes=10).source) < len(source)
    # Every edge starts at a drawn node or at a stub beside the op it feeds: no
    # dangling names, and no edge from the note across the picture.
    stubs = {a for a, _ in EDGE.findall(source) if a.endswith("_earlier")}
    assert stubs and all(EDGE.findall(source).count((s, s[: -len("_earlier")] + "_op")) == 1 for s in stubs)
    drawn = set(records) | {f"{r}_op" for r in records} | stubs
    assert all(a in drawn and b in drawn for a, b in EDGE.findall(source))
    # Each stub is a "..." of its own; undeclared, Graphviz would draw its name ("v921_earlier").
    assert all(f'\t{s} [label="..." shape=plaintext]' in source for s in stubs)


def test_bad_input_is_refused_by_name():
    with pytest.raises(TypeError, match=r"^draw\(\) needs a graph node \(a Value or a Tensor\), got float$"):
        draw(1.5)  # "float" alone matched topo_sort's error too, had draw() not checked first
    with pytest.raises(ValueError, match="max_nodes"):
        draw(Value(1.0), max_nodes=0)
    with pytest.raises(ValueError, match=r"BackwardStepper's max_nodes must be an int >= 1, got 0"):
        BackwardStepper(Value(1.0) * 2.0, max_nodes=0)  # was accepted, and failed at .widget()
    assert "v0" in draw(Value(1.0), max_nodes=np.int64(5)).source  # a NumPy int, as elsewhere
    x = Value(1.0, "x")  # one value asked for, around a focus that is not the root: it drew two
    assert "1 of its 5 values" in draw(x * 2.0 * 2.0, max_nodes=1, focus=x).summary


def test_array_nodes_show_their_shape():
    s = Tensor(np.ones((2, 3)), requires_grad=True).sum()
    source = draw(s).source
    assert "data shape (2, 3)" in source and "grad None" in source
    assert "data 6 " in source


def test_labels_with_record_characters_are_escaped():
    v = Value(1.0, "a{b|c}<d>") * 2.0
    assert r"a\{b\|c\}\<d\>" in draw(v).source


def test_a_newline_in_a_label_is_a_line_break():
    # Graphviz drops a newline itself from a label: "first\nsecond" was drawn "firstsecond".
    source = draw(Value(2.0, "first\nsecond")).source
    assert r'label="first\nsecond | data 2' in source


def test_without_dot_the_display_lists_the_values_under_a_hint_given_whole_once(no_dot):
    # It was the DOT text alone, 83 lines of it for lesson 05's cell, with the eight-line hint
    # above every drawing (three times in lesson 02).
    drawing = draw(seed_example())
    bundle, metadata = drawing._repr_mimebundle_()
    assert list(bundle) == ["text/plain"] and metadata == {}
    assert bundle["text/plain"] == (f"{INSTALL_HINT}\n\n{drawing.listing}\n\nIts DOT text, which Graphviz "
                                    f"draws:\n{drawing.source}")  # the DOT text too, as API.md says
    assert "apt install graphviz" in INSTALL_HINT and "restart the kernel" in INSTALL_HINT
    assert drawing.listing.splitlines() == [
        "tinyad drawing: the graph of y, 8 values and 4 operations",
        "value  data     grad     made by",
        "w1     0.5      0.7864   (an input)",
        "x1     1        0.3932   (an input)",
        "v2     0.5      0.7864   * of w1, x1",
        "w2     -0.5     1.573    (an input)",
        "x2     2        -0.3932  (an input)",
        "v5     -1       0.7864   * of w2, x2",
        "v6     -0.5     0.7864   + of v2, v5",
        "y      -0.4621  1        tanh of v6",
    ]
    # What a notebook does with the next drawing: no error, one line of hint, the table.
    data, _ = DisplayFormatter().format(drawing)
    assert data["text/plain"].startswith(f"{INSTALL_HINT_AGAIN}\n\n{drawing.listing}\n\n")
    assert "install graphviz" in INSTALL_HINT_AGAIN and "restart the kernel" in INSTALL_HINT_AGAIN
    assert INSTALL_HINT.split(",")[0] == INSTALL_HINT_AGAIN.split(",")[0]  # what the browser check looks for
    assert max(len(line) for line in INSTALL_HINT_AGAIN.splitlines()) <= HINT_WIDTH
    # A larger graph says what it left out, and where; the stepper's colours are named.
    long = chain(100)
    listed = draw(long, max_nodes=5, fills={long: "gold"}).listing.splitlines()
    # A label of any kind is one line of the table: a number failed (the picture drew it), a newline broke it.
    odd = Value(2.0, "first\nsecond")
    number = Value(3.0)
    number.label = 7
    assert "first second  2 " in draw(odd * number).listing and "\n7 " in draw(odd * number).listing
    # A label of spaces named nothing ("* of , v1"); a long one widened every line of the table.
    blank, wordy = Value(1.0, "   "), Value(2.0, "a label much longer than any name a table needs " * 6)
    table = draw(blank * wordy).listing.splitlines()
    assert table[2].startswith("v0 ") and table[-1].endswith("* of v0, a label much longer t...")
    assert max(len(line) for line in table) < 80
    exact = Value(1.0, "n" * 24)  # NAME_WIDTH: a name that fits is not cut
    assert draw(exact * 2.0).listing.splitlines()[2].startswith("n" * 24 + "  ")
    assert listed[-2].endswith("tanh of v99   [gold]") and listed[2].endswith("tanh of ...")
    assert listed[-1] == "(96 values further away not listed; ... marks where they feed in)"


def broken_at(text: str, width: int) -> list[str]:
    """The lines of ``text`` as a column ``width`` characters wide shows them, breaking
    a longer line wherever the column ends, inside a word or not (as notebooks do)."""
    return [line[k : k + width] for line in text.splitlines() for k in range(0, max(len(line), 1), width)]


def test_the_install_hint_never_breaks_inside_a_word():
    # As one line of 247 characters it showed as "... or brew install g" / "raphviz." in a
    # notebook column: the hint's own lines must be short enough that no column breaks them.
    words = INSTALL_HINT.split()
    for width in range(HINT_WIDTH, 121):  # a notebook column, narrow to wide
        assert " ".join(broken_at(INSTALL_HINT, width)).split() == words, f"a word broken at {width}"
    assert max(len(line) for line in INSTALL_HINT.splitlines()) <= HINT_WIDTH < 80
    for command in ("apt install graphviz", "conda install -c conda-forge graphviz", "brew install graphviz",
                    "winget install graphviz"):
        assert any(line.strip() == command for line in INSTALL_HINT.splitlines()), command


def chain(n: int) -> Value:
    """tanh applied n times to a labelled leaf: a graph that is long and thin."""
    y = Value(0.3, "x")
    for _ in range(n):
        y = y.tanh()
    y.label = "y"
    return y


def test_the_text_form_says_what_is_drawn():
    drawing = draw(seed_example())
    assert repr(drawing) == (
        "<tinyad drawing: the graph of y, 8 values and 4 operations; its DOT text is in .source>"
    )
    assert "80 of its 1001 values (those nearest the output)" in repr(draw(chain(1000)))


def test_fills_colour_the_nodes_they_name():
    y = seed_example()
    leaf = topo_sort(y)[0]
    source = draw(y, fills={y: "gold", leaf: "lightgrey"}).source
    assert source.count("style=filled") == 2
    assert re.search(r"v7 \[label=.*fillcolor=gold", source) and re.search(r"v0 \[label=.*fillcolor=lightgrey", source)


@needs_dot
def test_with_dot_the_display_is_svg_and_png_of_the_same_size():
    bundle, metadata = draw(chain(2))._repr_mimebundle_()  # narrower than FIT_WIDTH
    svg = bundle["image/svg+xml"]
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    assert "tanh" in svg and "data 0.3" in svg
    # The PNG shows where SVG is refused (an untrusted notebook), at the SVG's size; no
    # "unconfined", so JupyterLab scales the PNG down further to a narrower cell.
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(b"\x89PNG")
    assert metadata == {"image/png": dict(zip(("width", "height"), svg_size(svg)))}
    width, height = png_size(png)
    assert abs(width - svg_size(svg)[0]) <= 1 and abs(height - svg_size(svg)[1]) <= 1
    assert bundle["text/plain"].startswith("<tinyad drawing: the graph of y")


def png_size(png: bytes) -> tuple[int, int]:
    """A PNG's width and height in pixels, from its IHDR header."""
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


@needs_dot
def test_a_drawing_a_little_too_wide_is_scaled_to_the_width_and_keeps_its_layout():
    wide = chain(3)
    drawing = draw(wide)
    natural, _ = svg_size(drawing.pipe(format="svg", encoding="utf-8"))
    assert FIT_WIDTH < natural < 1.25 * FIT_WIDTH  # not worth turning top to bottom
    natural_height = svg_size(drawing.pipe(format="svg", encoding="utf-8"))[1]
    picture, svg = drawing.fitted()
    assert picture is drawing and svg_size(svg)[0] == FIT_WIDTH
    assert svg_size(svg)[1] == pytest.approx(natural_height * FIT_WIDTH / natural, abs=1)  # in proportion
    assert 'viewBox="0.00 0.00' in svg  # the drawing's own coordinates: it scales whole
    bundle, metadata = drawing._repr_mimebundle_()
    assert metadata["image/png"]["width"] == FIT_WIDTH
    assert png_size(base64.b64decode(bundle["image/png"]))[0] == pytest.approx(natural, abs=1)


@needs_dot
def test_a_wide_graph_is_laid_out_top_to_bottom_and_a_narrow_one_is_not():
    long_one = draw(chain(12))
    wide, _ = svg_size(long_one.pipe(format="svg", encoding="utf-8"))
    assert wide > 2 * FIT_WIDTH  # left to right it would be shrunk to under half its size
    picture, svg = long_one.fitted()
    assert picture.graph_attr["rankdir"] == "TB" and svg_size(svg)[0] <= FIT_WIDTH
    assert "rankdir=LR" in long_one.source  # the drawing itself is unchanged
    bundle, _ = long_one._repr_mimebundle_()
    assert bundle["image/svg+xml"] == svg

    short_one = draw(chain(1))
    picture, svg = short_one.fitted()
    assert picture is short_one and svg_size(svg)[0] <= FIT_WIDTH

    # Left to right shrunk to 0.56 of its size, top to bottom not at all: more than 1.25 times
    # larger on screen, so it turns.
    assert draw(chain(5)).fitted()[0].graph_attr["rankdir"] == "TB"
    # Ten inputs side by side make top to bottom as wide as left to right: no gain, no turn.
    inputs = [Tensor(float(k), requires_grad=True) for k in range(10)]
    fan = inputs[0].new_node(np.float64(45.0), parents=tuple(inputs), op="sum", backward_rule=lambda grad: None)
    both_wide = draw(fan.tanh().tanh().tanh())
    natural, _ = svg_size(both_wide.pipe(format="svg", encoding="utf-8"))
    tall, _ = svg_size(both_wide.top_to_bottom.pipe(format="svg", encoding="utf-8"))
    assert natural > FIT_WIDTH and tall > natural / 1.25, (natural, tall)
    picture, svg = both_wide.fitted()
    assert picture is both_wide and svg_size(svg)[0] == FIT_WIDTH


def test_svg_size_names_an_svg_that_does_not_say_its_size():
    assert svg_size('<svg width="72pt" height="36pt" viewBox="0 0 72 36">') == (96, 48)
    with pytest.raises(ValueError, match="no width and height in points at the start of this SVG"):
        svg_size('<svg viewBox="0 0 72 36">')


def test_a_graph_made_by_hand_with_a_number_for_a_parent_is_named_by_draw_and_the_stepper():
    # topo_sort met the float and failed at '.backward_rule'; backward already named the node.
    from tinyad.course.viz import BackwardStepper

    x = Value(2.0)
    bad = Value(3.0, "", (x, 2.0), "+", Value.add_backward)
    for call, who in ((draw, "draw()"), (BackwardStepper, "BackwardStepper")):
        with pytest.raises(TypeError, match=rf"{re.escape(who)}: the '\+' node .* has parent 1 = 2.0, a float"):
            call(bad)


@needs_dot
@pytest.mark.parametrize("op", ["x\\", "<b>x</b>", "<relu>"])
def test_an_op_name_is_drawn_as_the_text_it_is(op):
    # A trailing backslash broke Graphviz's quoting, and <...> was read as an HTML label.
    x = Value(2.0, "x")
    y = Value(-2.0, "y", (x,), op, Value.neg_backward)
    bundle, _ = draw(y)._repr_mimebundle_()
    escaped = op.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    assert ">" + escaped + "</text>" in bundle["image/svg+xml"]


@needs_dot
@pytest.mark.skipif(os.name == "nt", reason="a shell script stands in for dot, which Windows cannot run")
def test_a_dot_that_runs_but_cannot_draw_falls_back_and_says_why(monkeypatch, tmp_path):
    # Only a missing dot was caught: one built without PNG (or failing outright) gave IPython
    # graphviz's whole traceback, and the cell showed a one-line repr.
    import shutil

    real = shutil.which("dot")
    fake = tmp_path / "dot"
    fake.write_text(f'#!/bin/sh\ncase "$*" in *-Tpng*) echo "Format: png not recognized" >&2; exit 1;; esac\n'
                    f'exec {real} "$@"\n', encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{real.rpartition('/')[0]}")
    a = Value(2.0, "a")
    bundle, _ = draw(a * a)._repr_mimebundle_()
    assert "image/svg+xml" in bundle and "image/png" not in bundle  # the SVG alone
    fake.write_text('#!/bin/sh\necho "Error: something broke" >&2\nexit 1\n', encoding="utf-8")
    bundle, _ = draw(a * a)._repr_mimebundle_()
    assert bundle["text/plain"].startswith("The Graphviz dot program failed to draw this graph (Error: something "
                                           "broke); here it is as text:")
    assert "a      2     0     (an input)" in bundle["text/plain"]
    # A file named dot that cannot be run (no execute permission): a PermissionError from the display.
    fake.chmod(0o644)
    monkeypatch.setenv("PATH", str(tmp_path))
    bundle, _ = draw(a * a)._repr_mimebundle_()
    assert bundle["text/plain"].startswith("The Graphviz dot program failed to draw this graph ("), bundle
    assert "(an input)" in bundle["text/plain"]


def test_a_large_graph_keeps_the_values_nearest_the_output_not_the_last_in_order():
    # The last 80 in topological order left out the weight that feeds the root's own op (it comes
    # first in the order), and every weight of lesson 04's XOR loss: a picture of constants.
    w = Value(2.0, "w")
    y = Value(0.1, "x")
    for _ in range(100):
        y = (y * 0.5).tanh()
    loss = w * y
    loss.label = "loss"
    source = draw(loss).source
    assert topo_sort(loss)[0] is w and "w | data 2" in source
    for _ in range(400):
        y = (y * 0.5).tanh()
    assert len(topo_sort(y)) > 1000
    with pytest.raises(ValueError, match=r"draw\(\) draws at most 1000 values \(max_nodes=5000\)"):
        draw(y, max_nodes=5000)  # 12,000 values took Graphviz 8 minutes, and drew nothing readable
    assert len(RECORD.findall(draw(y, max_nodes=1000).source)) == 1000  # at most 1000: 1000 is drawn


def test_a_focus_keeps_its_neighbours_then_the_inputs_of_the_output():
    # loss = w * tanh(...tanh(x)), ten times; in order: v0 w, v1 x, v2 to v11 the tanhs, v12 the loss.
    w, x = Value(2.0, "w"), Value(0.3, "x")
    y = x
    for _ in range(10):
        y = y.tanh()
    loss = w * y
    kept = {most: RECORD.findall(draw(loss, max_nodes=most, focus=x).source) for most in (2, 3, 4, 5)}
    assert kept[2] == ["v1", "v12"]  # the focus and the output, always
    assert kept[3] == ["v1", "v2", "v12"]  # then the value that uses the focus,
    assert kept[4] == ["v0", "v1", "v2", "v12"]  # and the output's inputs, in turn
    assert kept[5] == ["v0", "v1", "v2", "v11", "v12"]
    a, b = Value(1.0, "a"), Value(2.0, "b")
    assert RECORD.findall(draw(a * b, max_nodes=2).source) == ["v0", "v2"]  # never more than asked for


def test_a_tensor_whose_parents_were_set_by_hand_is_named_by_draw():
    # A Tensor's constructor refuses a number for a parent, so only parents set afterwards reach
    # draw(): it stopped at "'float' object has no attribute 'backward_rule'" from inside the walk.
    t = (Tensor([1.0, 2.0], requires_grad=True) * 2).sum()
    t.parents = (2.0,)
    with pytest.raises(TypeError, match=r"^draw\(\): the 'sum' node has parent 0 = 2\.0, a float"):
        draw(t)


def test_a_tensor_released_by_backward_inside_the_graph_is_drawn_as_such():
    # It was drawn as a plain input: a box with no op.
    x = Tensor([1.0, 2.0], requires_grad=True)
    h = (x * 3).tanh()
    h.sum().backward()
    source = draw((h * 2).sum()).source
    assert "tanh: its inputs were released by backward()" in source
    assert "\tv0_op -> v0 [style=dashed]" in source  # the note points at the value it explains


def test_a_graph_released_by_backward_is_drawn_with_a_note_that_says_so():
    # After backward, a Tensor's root had no parents left: the drawing showed one value, silently.
    x = Tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * 2).sum()
    y.backward()
    drawing = draw(y)
    assert "backward() released the graph behind it (retain_graph=True keeps it)" in drawing.summary
    assert "released by backward()" in drawing.source
    kept = (x * 2).sum()
    kept.backward(retain_graph=True)
    assert "released" not in draw(kept).source


def test_the_text_form_counts_one_value_and_one_operation_in_the_singular():
    assert "1 value and 0 operations" in repr(draw(Value(1.0)))
    assert '"z | data 0 | grad 0"' in draw(Value(-0.0, "z")).source  # not "data -0"
    assert "2 values and 1 operation;" in repr(draw(Value(1.0).tanh()))


def test_every_value_drawn_of_a_large_graph_feeds_the_output():
    # Nearest counted either way, the search climbed up a weight and down its other uses: on an
    # unrolled RNN's loss, a dozen drawn values had no drawn path to the output.
    from tinyad.scalar.nn import RNNCell

    cell = RNNCell(1, 3, seed=0)
    h = [Value(0.0) for _ in range(3)]
    for x in [0.5, -0.2, 0.1, 0.4, -0.3, 0.2, 0.0, 0.6]:
        h = cell([x], h)
    loss = sum((v * v for v in h), Value(0.0))
    order = topo_sort(loss)
    assert len(order) > 3 * MAX_NODES
    source = draw(loss).source
    drawn = {int(name[1:]) for name in RECORD.findall(source)}
    feeds = {len(order) - 1}  # the drawn values with a drawn path to the output, from the output down
    for k in sorted(drawn, reverse=True):
        if k in feeds:
            feeds |= {order.index(p) for p in order[k].parents if order.index(p) in drawn}
    assert feeds == drawn
    with pytest.raises(ValueError, match=r"draw\(\)'s focus must be a node of the graph it draws, got int 3"):
        draw(loss, focus=3)
    assert RECORD.findall(draw(Value(1.0) * 2, max_nodes=5000).source)  # a small graph: any max_nodes
