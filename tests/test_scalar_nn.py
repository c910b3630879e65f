"""Networks of Values and the optimisers that train them."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tinyad import Value, gradcheck
from tinyad.optim import SGD, Adam
from tinyad.scalar.nn import MLP, Layer, Neuron, RNNCell
from torch_reference import needs_torch, torch  # tests/torch_reference.py


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


# -- optimisers on Values, step for step against torch.optim ------------------------


def _run(make_opt, torch_opt, steps=5):
    start = [0.5, -1.5, 2.0]
    ps = [Value(x) for x in start]
    ts = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in start]
    opt, topt = make_opt(ps), torch_opt(ts)
    for _ in range(steps):
        for params, o in ((ps, opt), (ts, topt)):
            o.zero_grad()
            loss = (params[0] * params[1] - 1) ** 2 + (params[2] * 0.5).tanh() + params[0] * params[0]
            loss.backward()
            o.step()
    for p, t in zip(ps, ts):
        assert p.data == pytest.approx(t.item(), rel=1e-12, abs=1e-14)


@needs_torch
def test_sgd_with_momentum_and_weight_decay_matches_torch():
    _run(
        lambda ps: SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
        lambda ts: torch.optim.SGD(ts, lr=0.1, momentum=0.9, weight_decay=0.01),
    )


@needs_torch
def test_adam_with_weight_decay_matches_torch():
    _run(
        lambda ps: Adam(ps, lr=0.05, weight_decay=0.01),
        lambda ts: torch.optim.Adam(ts, lr=0.05, weight_decay=0.01),
    )


def test_plain_sgd_step_by_hand():
    p = Value(1.0)
    p.grad = 0.5
    SGD([p], lr=0.1).step()
    assert p.data == 1.0 - 0.1 * 0.5


def test_optimiser_zero_grad_and_bad_settings():
    p = Value(1.0)
    p.grad = 3.0
    opt = SGD([p], lr=0.1)
    opt.zero_grad()
    assert p.grad == 0.0
    with pytest.raises(ValueError, match="empty"):
        SGD([], lr=0.1)
    with pytest.raises(ValueError, match="lr must be > 0, got -1"):
        SGD([p], lr=-1)
    with pytest.raises(ValueError, match=r"betas\[0\] must be >= 0 and < 1, got 1.0"):
        Adam([p], betas=(1.0, 0.9))
    with pytest.raises(ValueError, match=r"betas must be a pair"):
        Adam([p], betas=(0.9,))
    with pytest.raises(ValueError, match="eps must be >= 0"):
        Adam([p], eps=-1e-8)
    with pytest.raises(TypeError, match="lr must be a number, got '0.1'"):
        SGD([p], lr="0.1")


def test_optimiser_refuses_what_is_not_a_list_of_parameters():
    # A lone parameter would be iterated (a Tensor into its rows, which never get a
    # grad): the optimiser would silently train nothing.
    from tinyad import Tensor

    p = Value(1.0)
    W = Tensor(np.ones((2, 2)), requires_grad=True)
    with pytest.raises(TypeError, match=r"one Tensor; pass a list of parameters: \[p\]"):
        SGD(W, lr=0.1)
    with pytest.raises(TypeError, match=r"one Value"):
        SGD(p, lr=0.1)
    with pytest.raises(TypeError, match=r"got a MLP; pass its parameters: model.parameters\(\)"):
        SGD(MLP(2, [1]), lr=0.1)
    with pytest.raises(TypeError, match="parameter 1 is a float"):
        SGD([p, 1.0], lr=0.1)
    with pytest.raises(TypeError, match="needs a list of parameters, got 5"):
        SGD(5, lr=0.1)


def test_zero_grad_goes_by_the_kind_of_parameter_not_its_grad():
    # A learner may set a Value's grad to the int 0; zero_grad still gives it 0.0.
    from tinyad import Tensor

    v, t = Value(1.0), Tensor([1.0, 2.0], requires_grad=True)
    v.grad, t.grad = 0, np.ones(2)
    SGD([v, t], lr=0.1).zero_grad()
    assert v.grad == 0.0 and isinstance(v.grad, float)
    assert t.grad is None


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
