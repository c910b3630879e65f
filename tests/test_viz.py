"""draw(): the nodes and edges it makes, stable names, large graphs, and life without dot."""

from __future__ import annotations

import re
import shutil

import numpy as np
import pytest
from IPython.core.formatters import DisplayFormatter

from tinyad import Value, draw, topo_sort
from tinyad.viz import INSTALL_HINT, MAX_NODES, progress

RECORD = re.compile(r"^\s*(v\d+) \[label=\"\{.*shape=record\]$", re.M)
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
    assert '"{y | data -0.4621 | grad 1}"' in source
    assert '"{w2 | data -0.5 | grad 1.573}"' in source  # x2 * tanh' = 2 * 0.7864...


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
    assert f"{total - MAX_NODES} earlier values not drawn" in source
    assert len(draw(y, max_nodes=10).source) < len(source)
    # Every edge starts at a drawn node or at a stub beside the op it feeds: no
    # dangling names, and no edge from the note across the picture.
    stubs = {a for a, _ in EDGE.findall(source) if a.endswith("_earlier")}
    assert stubs and all(EDGE.findall(source).count((s, s[: -len("_earlier")] + "_op")) == 1 for s in stubs)
    drawn = set(records) | {f"{r}_op" for r in records} | stubs
    assert all(a in drawn and b in drawn for a, b in EDGE.findall(source))


def test_bad_input_is_refused_by_name():
    with pytest.raises(TypeError, match="float"):
        draw(1.5)
    with pytest.raises(ValueError, match="max_nodes"):
        draw(Value(1.0), max_nodes=0)


class ArrayNode:
    """Just enough of a tensor for draw(): array data, no grad yet."""

    def __init__(self, data, parents=(), op=""):
        self.data = np.asarray(data, dtype=float)
        self.grad = None
        self.parents = parents
        self.op = op
        self.backward_rule = None


def test_array_nodes_show_their_shape():
    a = ArrayNode(np.ones((2, 3)))
    s = ArrayNode(np.float64(6.0), (a,), "sum")
    source = draw(s).source
    assert "data shape (2, 3)" in source and "grad None" in source
    assert "data 6 " in source


def test_labels_with_record_characters_are_escaped():
    v = Value(1.0, "a{b|c}<d>") * 2.0
    assert r"a\{b\|c\}\<d\>" in draw(v).source


def test_without_dot_the_display_is_dot_text_and_a_hint(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no dot program
    drawing = draw(seed_example())
    bundle, metadata = drawing._repr_mimebundle_()
    assert list(bundle) == ["text/plain"] and metadata == {}
    assert bundle["text/plain"].startswith(INSTALL_HINT)
    assert drawing.source in bundle["text/plain"]
    assert "apt install graphviz" in INSTALL_HINT and "conda-forge" in INSTALL_HINT
    # What a notebook does with it: no error, the text form holds the hint.
    data, _ = DisplayFormatter().format(drawing)
    assert INSTALL_HINT in data["text/plain"]


@pytest.mark.skipif(shutil.which("dot") is None, reason="the Graphviz dot program is not installed")
def test_with_dot_the_display_is_svg():
    bundle, metadata = draw(seed_example())._repr_mimebundle_()
    svg = bundle["image/svg+xml"]
    # JupyterLab shows it at its own size (scrolling), not shrunk to the cell's width.
    assert metadata == {"image/svg+xml": {"unconfined": True}}
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    assert "tanh" in svg and "data &#45;0.4621" in svg
    assert "0x" not in bundle["text/plain"]


def test_progress_outside_a_notebook_is_range_with_a_text_bar(capsys):
    assert list(progress(5, "training")) == [0, 1, 2, 3, 4]
    err = capsys.readouterr().err
    assert "training" in err and "5/5" in err and "100%" in err
