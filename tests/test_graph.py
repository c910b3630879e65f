"""tinyad.graph: what a node is, the topological sort and the one reverse walk, for both engines."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from tinyad import Tensor, Value, topo_sort
from tinyad import graph


def test_both_engines_nodes_are_nodes_and_nothing_else_is():
    for node in (Value(1.0), Value(1.0) * 2, Tensor([1.0]), Tensor([1.0], requires_grad=True) * 2):
        assert graph.is_node(node) and isinstance(node, graph.Node)
    for other in (1.0, [Value(1.0)], np.ones(2), "x", None):
        assert not graph.is_node(other)


def test_topo_sort_refuses_what_is_not_a_node():
    for bad in (5, [Value(1.0)], None):
        with pytest.raises(TypeError, match="topo_sort needs a node of a graph"):
            topo_sort(bad)


def test_both_engines_backward_goes_through_the_one_walk(walk_calls):
    x = Value(2.0)
    loss = (x * x).tanh()
    loss.backward()
    t = Tensor([1.0, 2.0], requires_grad=True)
    total = (t * t).sum()
    total.backward()
    assert walk_calls == [loss, total]
    assert x.grad != 0.0 and t.grad is not None  # the walk really ran


def test_the_walk_hands_back_each_node_once_its_rule_has_run():
    a, b = Value(2.0, "a"), Value(3.0, "b")
    product = a * b
    out = product + a
    seen = []
    for node in graph.walk(out, 1.0):
        # The node's rule has run: its parents hold its share already.
        seen.append((node, [p.grad for p in node.parents]))
    assert [node for node, _ in seen] == list(reversed(topo_sort(out)))
    # out's rule gave a 1 and product 1; then product's gave a 3 (b) and b 2 (a).
    assert [grads for node, grads in seen if node is product] == [[4.0, 2.0]]
    assert (a.grad, b.grad) == (4.0, 2.0)


def test_every_node_of_both_engines_does_what_the_walk_asks():
    for node in (Value(2.0), Value(2.0) * 3, Tensor([1.0, 2.0], requires_grad=True)):
        assert graph.is_node(node) and isinstance(node, graph.Node)
        node.zero_grad()
        empty = node.grad
        node.accumulate(node.data * 0 + 1.5)
        node.accumulate(node.data * 0 + 1.5)
        assert np.all(np.asarray(node.grad) == 3.0) and node.has_grad()
        node.zero_grad()
        assert node.grad is empty or node.grad == empty
        leaf = node.new_leaf(node.data)
        assert leaf is not node and not leaf.parents and np.all(np.asarray(leaf.data) == np.asarray(node.data))


def test_a_class_with_the_fields_but_not_the_behaviour_is_not_a_node():
    class Fields:
        data, grad, parents, op, backward_rule = 1.0, 0.0, (), "", None

    assert not graph.is_node(Fields())


def test_topo_sort_puts_parents_first_and_each_node_once():
    a, b = Value(1.0), Value(2.0)
    c = a * b
    d = c + a
    e = d * c
    order = topo_sort(e)
    assert len(order) == len({id(n) for n in order}) == 5
    position = {id(n): i for i, n in enumerate(order)}
    for node in order:
        for p in node.parents:
            assert position[id(p)] < position[id(node)]
    assert order[-1] is e


def test_topo_sort_is_depth_first_post_order_in_parent_order():
    # The order lesson 02 derives by hand: follow parents left to right, place a
    # node once its parents are placed.
    a, b, c = Value(1.0, "a"), Value(2.0, "b"), Value(3.0, "c")
    ab = a * b
    abc = ab + c
    out = abc * a
    assert topo_sort(out) == [a, b, ab, c, abc, out]


def test_graph_nodes_hash_by_identity():
    # topo_sort keeps the nodes it has seen in a set of the nodes themselves.
    from tinyad import Tensor

    for node_type in (Value, Tensor):
        assert node_type.__hash__ is object.__hash__, node_type
    assert Value.__eq__ is object.__eq__
    a, b = Tensor([1.0]), Tensor([1.0])
    assert len({a, b, a}) == 2
    with pytest.raises(TypeError, match=r"t.data == other.data"):
        a == b  # noqa: B015 (the comparison is the point)
    with pytest.raises(TypeError, match=r"no == or !="):
        a != 1.0  # noqa: B015


def test_a_tensor_looked_up_in_a_list_is_told_how_to_find_it_by_identity():
    # `p in params` compares p with each entry by `is`, then by ==: the first parameter was found,
    # the last one raised "no == or !=", which the learner never wrote.
    params = [Tensor([1.0]), Tensor([2.0])]
    assert params[0] in params
    with pytest.raises(TypeError, match=r"`p in params`.*any\(p is q for q in params\), or a set"):
        params[1] in params  # noqa: B015
    assert params[1] in set(params)


def test_a_chain_far_deeper_than_the_recursion_limit_sorts_and_backpropagates():
    # 200,000 nodes deep, 200 times Python's recursion limit (benchmarks/scalar_bench.py times a
    # million): a walk that recursed would stop near 1,000.
    x = Value(0.3)
    h = x
    for _ in range(200_000):
        h = h + 1.0  # each step: one + node and one constant leaf
    assert len(topo_sort(h)) == 400_001
    h.backward()
    assert x.grad == 1.0
    assert sys.getrecursionlimit() < 200_000  # the walk did not need a bigger stack


def test_a_rule_that_returns_its_gradient_is_named_for_both_engines():
    # PyTorch's custom Function returns its gradients; a rule that did so here was ignored in silence.
    def square_rule(out):
        (x,) = out.parents
        return 2 * x.data * out.grad

    a = Value(3.0)
    with pytest.raises(TypeError, match=r"the backward rule square_rule of the 'square' node returned a value"):
        Value(9.0, "", (a,), "square", square_rule).backward()
    t = Tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match=r"returned a value: .*parent\.accumulate"):
        t.new_node(t.data**2, parents=(t,), op="square", backward_rule=square_rule).sum().backward()


def test_a_rule_that_cannot_be_called_with_its_node_is_named_for_both_engines():
    # A rule given by its name, or written to take the gradient as well, failed inside the walk
    # in Python's words ("'str' object is not callable", "missing 1 required positional argument").
    def mul_backward(out, grad):
        for parent in out.parents:
            parent.grad += grad

    a = Value(3.0)
    t = Tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(TypeError, match=r"the 'square' node's backward rule is 'square_backward', a str, "
                                        r"not a function: give the function itself"):
        Value(9.0, "", (a,), "square", "square_backward").backward()
    with pytest.raises(TypeError, match=r"the 'square' node's backward rule is 'square_backward', a str"):
        t.new_node(t.data**2, parents=(t,), op="square", backward_rule="square_backward").sum().backward()
    with pytest.raises(TypeError, match=r"the backward rule mul_backward of the '\*' node cannot be called "
                                        r"as mul_backward\(node\): a rule takes one argument, its node "
                                        r"\(read node.grad for the gradient, node.parents for its inputs\)") as raised:
        Value(2.0, "", (a,), "*", mul_backward).backward()
    assert raised.value.__cause__ is None and raised.value.__suppress_context__
    with pytest.raises(TypeError, match=r"the backward rule mul_backward of the 'double' node cannot be called"):
        t.new_node(t.data * 2, parents=(t,), op="double", backward_rule=mul_backward).sum().backward()

    # parent.grad += ..., a Value's way, in a Tensor's rule: the parent's gradient is None before
    # its first share. It read "unsupported operand type(s) for +: 'NoneType' and 'float'".
    def double_backward(out):
        (x,) = out.parents
        x.grad += 2 * out.grad

    with pytest.raises(TypeError, match=r"^the backward rule double_backward of the 'double' node added into a "
                                        r"gradient that is None \(unsupported operand type\(s\) for \+: 'NoneType' "
                                        r"and '\w+'\): a Tensor's gradient is None until its first share arrives, "
                                        r"so a rule adds into it with parent.accumulate\(g\), "
                                        r"not parent.grad \+= g$") as raised:
        t.new_node(t.data * 2, parents=(t,), op="double", backward_rule=double_backward).sum().backward()
    assert raised.value.__suppress_context__  # Python's own words are in the message already

    def saved_forgotten(out):  # None too, but not a gradient added into
        (x,) = out.parents
        x.accumulate(out.saved * out.grad)

    assert not t.has_grad()  # as above: only the form of the slip tells the two apart
    with pytest.raises(TypeError, match=r"^unsupported operand type\(s\) for \*: 'NoneType'"):
        t.new_node(t.data * 2, parents=(t,), op="double", backward_rule=saved_forgotten).sum().backward()

    # A TypeError from inside a rule that takes its node is the rule's own, unchanged.
    def bad_rule(out):
        out.parents[0].grad += "1"

    with pytest.raises(TypeError, match=r"unsupported operand|can only concatenate|must be real"):
        Value(2.0, "", (a,), "bad", bad_rule).backward()


def test_neither_engines_node_class_defines_getattr():
    # A class with __getattr__ loses Python's fast attribute reads on every instance (3.11's
    # specialised LOAD_ATTR asks for the generic lookup): t.data, t.grad and v.data in every op.
    # Tried once, for hints on a missing name (t.argmax()): the small MLP's step took 5% longer.
    for hook in ("__getattr__", "__getattribute__"):  # the second costs every read the same way
        assert hook not in vars(Tensor) and hook not in vars(Value), hook


def test_what_a_node_is_is_these_ten_names_and_a_class_is_none():
    # The contract both engines keep (graph.Node): its fields, then what a node does.
    assert graph.NODE_FIELDS == ("data", "grad", "parents", "op", "backward_rule",
                                 "zero_grad", "has_grad", "accumulate", "release", "new_leaf")
    for kind in (Value, Tensor):
        assert not graph.is_node(kind), kind  # the class has every name, as descriptors and methods
    assert graph.is_node(Value(1.0)) and graph.is_node(Tensor([1.0]))
