"""Networks of Values (their optimisers: tests/test_optim.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tinyad import gradcheck
from tinyad.scalar.nn import MLP, Layer, Module, Neuron, RNNCell


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


def test_weights_lie_within_one_over_the_square_root_of_their_inputs_and_biases_start_at_0():
    # The range of the array engine's layers (tests/test_tensor_nn.py): a range of 1 / nin, or W_x's
    # and W_h's ranges swapped, or a bias that did not start at 0, went unnoticed.
    neuron = Neuron(400, seed=0)
    assert 0.045 < max(abs(w.data) for w in neuron.w) <= 0.05 and neuron.b.data == 0.0
    cell = RNNCell(400, 25, seed=0)  # W_x reads 400 inputs, W_h 25 hidden units
    assert 0.045 < max(abs(w.data) for row in cell.wx for w in row) <= 0.05
    assert 0.18 < max(abs(w.data) for row in cell.wh for w in row) <= 0.2
    assert all(b.data == 0.0 for b in cell.b)


def test_the_neurons_of_a_layer_and_the_layers_of_a_network_are_drawn_apart():
    # Each neuron draws from a seed of its own. Two drawn alike get the same gradient at every step
    # and stay alike: a layer given its network's seed for every neuron, a network its seed for every
    # layer, or an RNN cell one row of W_h for all, made every test here pass.
    mlp = MLP(3, [3, 3, 3], seed=0)
    weights = [w.data for layer in mlp.layers for n in layer.neurons for w in n.w]
    assert len(set(weights)) == len(weights) == 27
    cell = RNNCell(3, 3, seed=0)
    weights = [w.data for rows in (cell.wx, cell.wh) for row in rows for w in row]
    assert len(set(weights)) == len(weights) == 18


def test_mlp_last_layer_is_linear():
    mlp = MLP(2, [4, 3], seed=0)
    outs = mlp([0.3, -0.2])
    assert len(outs) == 3 and all(o.op == "+" for o in outs)
    assert all(n.nonlin for n in mlp.layers[0].neurons)


def mlp_with(mlp: MLP, params) -> MLP:
    """``mlp`` holding the Values ``params`` (in parameters() order) as its weights and biases.

    gradcheck calls f on new leaves, so f must put them into the network it computes with."""
    given = iter(params)
    for layer in mlp.layers:
        for n in layer.neurons:
            n.w = [next(given) for _ in n.w]
            n.b = next(given)
    assert all(p is q for p, q in zip(mlp.parameters(), params, strict=True))
    return mlp


def test_mlp_gradients_match_finite_differences():
    mlp = MLP(2, [3, 1], seed=2)

    def loss(*ps):
        return (mlp_with(mlp, ps)([0.4, -0.7])[0] - 1.0) ** 2

    assert gradcheck(loss, *mlp.parameters())


def _unroll(cell, xs=(0.5, -1.0, 0.25)):
    h = [0.0] * cell.nhidden
    for x in xs:
        h = cell([x], h)
    return h


def cell_with(cell: RNNCell, params) -> RNNCell:
    """``cell`` holding the Values ``params`` (in parameters() order): W_x, W_h row by row, b."""
    given = iter(params)
    cell.wx = [[next(given) for _ in row] for row in cell.wx]
    cell.wh = [[next(given) for _ in row] for row in cell.wh]
    cell.b = [next(given) for _ in cell.b]
    assert all(p is q for p, q in zip(cell.parameters(), params, strict=True))
    return cell


def test_rnn_cell_unrolled_gradients_match_finite_differences():
    cell = RNNCell(1, 2, seed=0)

    def loss(*params):
        h = _unroll(cell_with(cell, params))
        return h[0] * h[0] + h[1]

    assert len(_unroll(cell)) == 2
    original = cell.parameters()
    assert gradcheck(loss, *original)
    loss(*original).backward()
    assert all(p.grad != 0.0 for p in cell.wh[0])  # the shared weights collect from every step


def test_wrong_number_of_inputs_is_named():
    with pytest.raises(ValueError, match="takes 3 inputs, got 2"):
        Neuron(3)([1.0, 2.0])
    with pytest.raises(ValueError, match="h takes 2 inputs, got 3"):
        RNNCell(1, 2)([1.0], [0.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="x takes 2 inputs, got 1"):
        RNNCell(2, 2)([1.0], [0.0, 0.0])
    with pytest.raises(ValueError, match=r"takes 2 inputs, got 1 \(a batch of 1 examples\? The network takes one"):
        MLP(2, [1])([[1.0, 2.0]])  # a batch of one example


def test_the_modules_show_their_sizes_and_a_module_without_an_output_says_so():
    assert repr(Neuron(2)) == "Neuron(2, tanh)" and repr(Neuron(2, nonlin=False)) == "Neuron(2, linear)"
    assert repr(Layer(2, 2, seed=0)) == "Layer([Neuron(2, tanh), Neuron(2, tanh)])"
    assert repr(MLP(2, [3, 1], seed=0)) == "MLP(2-3-1)" and repr(MLP(2, [1], seed=0)) == "MLP(2-1)"
    assert repr(RNNCell(2, 3)) == "RNNCell(nin=2, nhidden=3)"

    class Network(Module):  # parameters, but no __call__
        pass

    with pytest.raises(TypeError, match=r"Network must define __call__\(self, x\), which computes its output"):
        Network()([1.0])


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
        (lambda: RNNCell(0, 2), "RNNCell's nin must be an int >= 1, got 0"),
    ]:
        with pytest.raises(ValueError, match=words):
            make()
    with pytest.raises(TypeError, match=r"nouts must be a list of layer sizes, like \[16, 1\], got 4"):
        MLP(2, 4)
    with pytest.raises(TypeError, match=r"nouts must be a list of layer sizes, like \[16, 1\], got 3\.5"):
        MLP(2, 3.5)  # no int, and nothing to iterate over either
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


def test_a_numpy_integer_seed_gives_the_same_network_as_the_python_int():
    # random.Random refused np.int64: "The only supported seed types are: None, int, ...".
    for make in (lambda s: Neuron(3, seed=s), lambda s: Layer(2, 3, seed=s),
                 lambda s: MLP(2, [4, 1], seed=s), lambda s: RNNCell(2, 3, seed=s)):
        assert [p.data for p in make(np.int64(7)).parameters()] == [p.data for p in make(7).parameters()]


@pytest.mark.parametrize("make, who, words", [
    (lambda: MLP(2, [4, 1], 0.5), "MLP", "float 0.5"),  # a learning rate where the seed goes
    (lambda: Layer(2, 3, 0.5), "Layer", "float 0.5"),
    (lambda: Neuron(2, seed=1.0), "Neuron", "float 1.0"),
    (lambda: RNNCell(2, 3, seed="0"), "RNNCell", "str '0'"),
    (lambda: MLP(2, [4, 1], seed=True), "MLP", "bool True"),
])
def test_a_seed_that_is_not_an_int_is_named(make, who, words):
    # random.Random took a float or a str as it was, and a bool as 1: no error, another network.
    with pytest.raises(TypeError, match=rf"{who}'s seed must be None or an int >= 0, got {words}"):
        make()


def test_a_negative_seed_is_named():
    with pytest.raises(ValueError, match="RNNCell's seed must be None or an int >= 0, got -1"):
        RNNCell(2, 3, seed=-1)


def test_a_module_without_parameters_says_so_instead_of_having_none():
    # The base class returned []: zero_grad() and every update silently did nothing.
    from tinyad.scalar.nn import Module

    class TwoNeurons(Module):
        def __init__(self) -> None:
            self.neurons = [Neuron(2, seed=0), Neuron(2, seed=1)]

    model = TwoNeurons()
    with pytest.raises(NotImplementedError, match=r"TwoNeurons does not define parameters\(\): .* returns the list"):
        model.parameters()
    with pytest.raises(NotImplementedError, match="TwoNeurons does not define parameters"):
        model.zero_grad()


def test_an_rnn_cell_step_is_tanh_of_its_weighted_sum():
    # Only a gradcheck looked at the cell, and any differentiable step passes one: a cell without
    # its tanh, or one that added its hidden weights instead of multiplying, went through.
    cell = RNNCell(2, 1, seed=0)
    (wx1, wx2), (wh,), (b,) = cell.wx[0], cell.wh[0], cell.b
    for p, value in ((wx1, 2.0), (wx2, -1.0), (wh, 0.5), (b, 0.1)):
        p.data = value
    for x, h in (([1.0, 0.5], [1.0]), ([1.0, 0.5], [0.0]), ([-0.3, 2.0], [-0.7])):
        (new,) = cell(x, h)
        assert new.data == pytest.approx(math.tanh(2.0 * x[0] - 1.0 * x[1] + 0.5 * h[0] + 0.1), abs=1e-15)


def test_a_neuron_of_true_inputs_is_refused():
    with pytest.raises(ValueError, match="must be an int >= 1, got True"):
        Neuron(True)
