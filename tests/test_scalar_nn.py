"""Networks of Values (their optimisers: tests/test_optim.py)."""

from __future__ import annotations

import math

import pytest

from tinyad import gradcheck
from tinyad.scalar.nn import MLP, Layer, Neuron, RNNCell


def test_neuron_computes_tanh_of_a_weighted_sum():
    n = Neuron(2, seed=0)
    n.w[0].data, n.w[1].data, n.b.data = 0.5, -0.5, 0.1
    out = n([1.0, 2.0])
    assert out.data == pytest.approx(math.tanh(0.5 - 1.0 + 0.1), rel=1e-15)
    assert Neuron(2, nonlin=False, seed=0)([0.0, 0.0]).op == "+"


def test_parameter_counts():
    assert len(Neuron(3).parameters()) == 4
    assert len(Layer(3, 5).parameters()) == 20
    assert len(MLP(2, [16, 16, 1]).parameters()) == (2 + 1) * 16 + (16 + 1) * 16 + (16 + 1) * 1
    assert len(RNNCell(3, 4).parameters()) == 4 * 3 + 4 * 4 + 4


def test_parameters_are_leaves():
    assert all(p.parents == () and p.op == "" for p in MLP(2, [4, 1], seed=1).parameters())


def test_same_seed_same_network_other_seed_other_network():
    def weights(seed):
        return [p.data for p in MLP(2, [8, 8, 1], seed=seed).parameters()]

    assert weights(3) == weights(3)
    assert weights(3) != weights(4)
    assert [p.data for p in RNNCell(2, 3, seed=5).parameters()] == [
        p.data for p in RNNCell(2, 3, seed=5).parameters()
    ]


def test_mlp_last_layer_is_linear():
    mlp = MLP(2, [4, 3], seed=0)
    outs = mlp([0.3, -0.2])
    assert len(outs) == 3 and all(o.op == "+" for o in outs)
    assert all(n.nonlin for n in mlp.layers[0].neurons)


def test_mlp_gradients_match_finite_differences():
    mlp = MLP(2, [3, 1], seed=2)
    params = mlp.parameters()

    def loss(*ps):
        return (mlp([0.4, -0.7])[0] - 1.0) ** 2

    assert gradcheck(loss, *params)


def _unroll(cell, xs=(0.5, -1.0, 0.25)):
    h = [0.0] * cell.nhidden
    for x in xs:
        h = cell([x], h)
    return h


def test_rnn_cell_unrolled_gradients_match_finite_differences():
    cell = RNNCell(1, 2, seed=0)

    def loss(*params):
        h = _unroll(cell)
        return h[0] * h[0] + h[1]

    assert len(_unroll(cell)) == 2
    assert gradcheck(loss, *cell.parameters())
    loss().backward()
    assert all(p.grad != 0.0 for p in cell.wh[0])  # the shared weights collect from every step


def test_wrong_number_of_inputs_is_named():
    with pytest.raises(ValueError, match="takes 3 inputs, got 2"):
        Neuron(3)([1.0, 2.0])
    with pytest.raises(ValueError, match="h takes 2 inputs, got 3"):
        RNNCell(1, 2)([1.0], [0.0, 0.0, 0.0])


def test_zero_grad_clears_every_parameter():
    mlp = MLP(2, [3, 1], seed=0)
    mlp([1.0, 1.0])[0].backward()
    assert any(p.grad != 0.0 for p in mlp.parameters())
    mlp.zero_grad()
    assert all(p.grad == 0.0 for p in mlp.parameters())


def test_bad_sizes_and_inputs_are_named():
    for make, words in [
        (lambda: Neuron(0), "Neuron's nin must be an int >= 1, got 0"),
        (lambda: Layer(2, 0), "Layer's nout must be an int >= 1, got 0"),
        (lambda: MLP(2, []), "MLP needs at least one layer"),
        (lambda: MLP(2, [4, 0]), r"MLP's nouts\[1\] must be an int >= 1, got 0"),
        (lambda: RNNCell(1, 2.5), "RNNCell's nhidden must be an int >= 1, got 2.5"),
    ]:
        with pytest.raises(ValueError, match=words):
            make()
    with pytest.raises(TypeError, match=r"nouts must be a list of layer sizes, like \[16, 1\], got 4"):
        MLP(2, 4)
    with pytest.raises(TypeError, match="takes a list of 2 inputs, got float"):
        MLP(2, [1])(1.0)


def test_a_network_called_on_strings_names_what_it_got():
    with pytest.raises(TypeError, match=r"Value\(\) needs a real number, got str: 'a'"):
        MLP(2, [3, 1], seed=0)(["a", "b"])


@pytest.mark.parametrize("nonlin", ["relu", "none", 1, None])
def test_a_neuron_refuses_a_nonlin_that_is_not_true_or_false(nonlin):
    # "relu" is truthy: it silently built a tanh neuron.
    with pytest.raises(TypeError, match=rf"Neuron's nonlin \(tanh or not\) must be True or False, got {nonlin!r}"):
        Neuron(2, nonlin=nonlin)
    assert Neuron(2, nonlin=False).nonlin is False
