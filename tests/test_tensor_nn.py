"""tinyad.tensor.nn, against PyTorch (the optimisers: tests/test_optim.py)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

from tinyad import Tensor
from tinyad.tensor import functional as F
from tinyad.tensor import nn

from torch_reference import needs_torch, torch  # tests/torch_reference.py


def test_same_seed_same_network_and_parameters_are_leaves():
    a, b = nn.MLP(4, [8, 3], seed=7), nn.MLP(4, [8, 3], seed=7)
    assert len(a.parameters()) == 4
    for p, q in zip(a.parameters(), b.parameters()):
        np.testing.assert_array_equal(p.data, q.data)
        assert p.requires_grad and p.parents == ()
    c = nn.MLP(4, [8, 3], seed=8)
    assert not np.array_equal(a.parameters()[0].data, c.parameters()[0].data)
    # Each layer draws from a seed of its own: layers of one shape given the network's seed alike
    # would start alike.
    square = nn.MLP(4, [4, 4], seed=7)
    assert not np.array_equal(square.layers[0].W.data, square.layers[1].W.data)


def test_float32_network_stays_float32():
    model = nn.MLP(5, [6, 2], seed=0, dtype=np.float32)
    x = Tensor(np.ones((3, 5), dtype=np.float32))
    loss = F.cross_entropy(model(x), [0, 1, 1])
    loss.backward()
    assert loss.dtype == np.float32
    assert all(p.grad.dtype == np.float32 for p in model.parameters())


@needs_torch
def test_mlp_matches_torch():
    model = nn.MLP(4, [5, 3], seed=1)
    x = np.random.default_rng(2).normal(size=(6, 4))
    labels = [0, 2, 1, 1, 0, 2]
    loss = F.cross_entropy(model(Tensor(x)), labels)
    loss.backward()
    params = [torch.tensor(p.data, requires_grad=True) for p in model.parameters()]
    w1, b1, w2, b2 = params
    h = torch.relu(torch.tensor(x) @ w1 + b1)
    expected = torch.nn.functional.cross_entropy(h @ w2 + b2, torch.tensor(labels))
    expected.backward()
    assert loss.item() == pytest.approx(expected.item(), rel=1e-12)
    for p, r in zip(model.parameters(), params):
        np.testing.assert_allclose(p.grad, r.grad.numpy(), rtol=1e-10, atol=1e-12)


@needs_torch
def test_rnn_matches_torch_and_zero_grad_clears():
    rnn = nn.RNN(3, 5, seed=3)
    x = np.random.default_rng(4).normal(size=(7, 2, 3))  # (T, batch, nin)
    states = rnn(x)
    assert len(states) == 7 and states[-1].shape == (2, 5)
    loss = (states[-1] * states[-1]).sum() + states[2].sum()
    loss.backward()
    w_x, w_h, b = [torch.tensor(p.data, requires_grad=True) for p in rnn.parameters()]
    h = torch.zeros(2, 5, dtype=torch.float64)
    hs = []
    for t in range(7):
        h = torch.tanh(torch.tensor(x[t]) @ w_x + h @ w_h + b)
        hs.append(h)
    expected = (hs[-1] * hs[-1]).sum() + hs[2].sum()
    expected.backward()
    assert loss.item() == pytest.approx(expected.item(), rel=1e-12)
    for p, r in zip(rnn.parameters(), (w_x, w_h, b)):
        np.testing.assert_allclose(p.grad, r.grad.numpy(), rtol=1e-10, atol=1e-12)
    rnn.zero_grad()
    assert all(p.grad is None for p in rnn.parameters())


def test_rnn_shape_errors():
    rnn = nn.RNN(3, 5, seed=0)
    with pytest.raises(ValueError, match=r"\(T, batch, 3\) with T >= 1 time steps, got \(7, 2, 4\)"):
        rnn(np.zeros((7, 2, 4)))
    with pytest.raises(ValueError, match=r"h0 of shape \(2, 5\), got \(2, 4\)"):
        rnn(np.zeros((7, 2, 3)), h0=np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"with T >= 1 time steps, got \(0, 2, 3\)"):
        rnn(np.zeros((0, 2, 3)))  # was [], whose [-1] is an IndexError a line later


def test_bad_sizes_are_named():
    for make, words in [
        (lambda: nn.Linear(0, 2), "Linear's nin must be an int >= 1, got 0"),
        (lambda: nn.Linear(2, -1), "Linear's nout must be an int >= 1, got -1"),
        (lambda: nn.MLP(3, []), "MLP needs at least one layer"),
        (lambda: nn.RNN(2, 0), "RNN's nhidden must be an int >= 1, got 0"),
        (lambda: nn.RNN(0, 2), "RNN's nin must be an int >= 1, got 0"),
    ]:
        with pytest.raises(ValueError, match=words):
            make()


@pytest.mark.parametrize("make, error, words", [
    (lambda: nn.MLP(64, [32, 10], 0.01), TypeError, r"MLP's seed must be None or an int >= 0, got float 0\.01"),
    (lambda: nn.Linear(3, 2, "relu"), TypeError, r"Linear's seed must be None or an int >= 0, got str 'relu'"),
    (lambda: nn.RNN(3, 2, seed=-1), ValueError, r"RNN's seed must be None or an int >= 0, got -1"),
    (lambda: nn.MLP(4, [3], seed=0, device="cuda"), ValueError, r"device='cuda' needs xp="),
])
def test_a_network_names_a_bad_seed_or_a_device_without_its_library(make, error, words):
    # Before: NumPy's "SeedSequence expects int or sequence of ints", and device="cuda" ignored.
    with pytest.raises(error, match=words):
        make()


def test_a_numpy_integer_seed_is_a_seed():
    first, second = nn.MLP(4, [3], seed=np.int64(1)), nn.MLP(4, [3], seed=1)
    np.testing.assert_array_equal(first.parameters()[0].data, second.parameters()[0].data)


def test_a_module_that_does_not_list_its_parameters_says_so():
    # Before: the base class answered [], so zero_grad() and a hand-written update did nothing.
    class Net(nn.Module):
        def __init__(self):
            self.layer = nn.Linear(2, 2, seed=0)

    with pytest.raises(NotImplementedError, match="Net must define parameters()"):
        Net().zero_grad()


def test_a_float32_network_keeps_float32_for_a_constant_tensor_of_float64_data():
    # Before: m32(x) was float32 but m32(Tensor(x)) float64, the float32 speed-up gone in silence.
    x = np.random.default_rng(0).normal(size=(8, 4))
    model = nn.MLP(4, [5, 3], seed=0, dtype=np.float32)
    assert model(x).dtype == np.float32 and model(Tensor(x)).dtype == np.float32
    np.testing.assert_allclose(model(Tensor(x)).data, model(x).data)
    rnn = nn.RNN(4, 3, seed=0, dtype=np.float32)
    assert rnn(Tensor(np.ones((2, 8, 4))))[-1].dtype == np.float32
    # A tensor that requires a gradient is an activation: NumPy's promotion applies, as for x @ W.
    assert model(Tensor(x, requires_grad=True)).dtype == np.float64


def test_weights_lie_within_plus_and_minus_one_over_the_square_root_of_their_inputs():
    # The docstring's range, [-1/sqrt(nin), 1/sqrt(nin)]: a range of 1/nin, or [0, 1/sqrt(nin)], went
    # unnoticed; so did an RNN's W_h drawn for nin inputs, or its bias drawn instead of zeros.
    layer = nn.Linear(100, 50, seed=0)
    largest = np.abs(layer.W.data).max()
    assert 0.09 < largest <= 0.1
    assert layer.W.data.min() < -0.09
    assert not layer.b.data.any()
    rnn = nn.RNN(400, 25, seed=0)  # W_x reads 400 inputs, W_h 25 hidden units
    assert 0.045 < np.abs(rnn.W_x.data).max() <= 0.05 and 0.18 < np.abs(rnn.W_h.data).max() <= 0.2
    assert not rnn.b.data.any()


def test_mlp_and_rnn_compute_their_formulas():
    # The same numbers from NumPy, where PyTorch is not there to compare with: without it, tanh for
    # relu, relu on the logits too, an RNN that read x[0] at every step, left out its bias or h0,
    # started from ones without h0, or returned only its last state each passed every test. (Biases
    # set off 0, so that they count.)
    rng = np.random.default_rng(9)
    model = nn.MLP(3, [4, 2], seed=1)
    for layer in model.layers:
        layer.b.data = rng.normal(size=layer.b.shape)
    x = rng.normal(size=(5, 3))
    w1, b1, w2, b2 = (p.data for p in model.parameters())
    np.testing.assert_allclose(model(x).data, np.maximum(x @ w1 + b1, 0.0) @ w2 + b2, rtol=1e-12, atol=1e-15)
    rnn = nn.RNN(3, 4, seed=2)
    rnn.b.data = rng.normal(size=4)
    xs, h = rng.normal(size=(6, 2, 3)), rng.normal(size=(2, 4))
    states = rnn(xs, h0=h)
    w_x, w_h, b = (p.data for p in rnn.parameters())
    assert len(states) == 6
    for x_t, state in zip(xs, states):
        h = np.tanh(x_t @ w_x + h @ w_h + b)
        np.testing.assert_allclose(state.data, h, rtol=1e-12, atol=1e-15)
    # Without h0, the state starts at zeros.
    np.testing.assert_array_equal(rnn(xs)[-1].data, rnn(xs, h0=np.zeros((2, 4)))[-1].data)


def test_zero_grad_clears_every_parameter():
    for model, x in ((nn.MLP(3, [4, 2], seed=0), np.ones((2, 3))), (nn.RNN(3, 4, seed=0), np.ones((5, 2, 3)))):
        out = model(x)
        (out[-1] if isinstance(out, list) else out).sum().backward()
        assert all(p.grad is not None for p in model.parameters())
        model.zero_grad()
        assert all(p.grad is None for p in model.parameters())


def test_a_model_deep_copied_or_pickled_is_its_own_and_trains():
    # Keeping the best model during training (copy.deepcopy) and saving one (pickle): before, both
    # failed with "cannot pickle 'module' object", from the namespace each Tensor keeps.
    from tinyad.optim import SGD
    from tinyad.tensor.backend import NUMPY

    model = nn.MLP(3, [4, 2], seed=0)
    x, labels = np.random.default_rng(1).normal(size=(5, 3)), [0, 1, 0, 1, 1]
    kept, saved = copy.deepcopy(model), pickle.loads(pickle.dumps(model))
    for twin in (kept, saved):
        np.testing.assert_array_equal(twin(x).data, model(x).data)
        assert all(p.xp is NUMPY and p.requires_grad for p in twin.parameters())
    before = [p.data.copy() for p in kept.parameters()]
    F.cross_entropy(model(x), labels).backward()
    SGD(model.parameters(), lr=0.5).step()
    assert all(np.array_equal(p.data, b) and p.grad is None for p, b in zip(kept.parameters(), before))
    F.cross_entropy(saved(x), labels).backward()  # the copy has a graph of its own
    assert [p.grad.shape for p in saved.parameters()] == [(3, 4), (4,), (4, 2), (2,)]


@pytest.mark.parametrize("copied", [copy.deepcopy, lambda t: pickle.loads(pickle.dumps(t))],
                         ids=["deepcopy", "pickle"])
def test_a_tensor_of_array_api_strict_copied_keeps_its_library(copied):
    # (array_api_strict's own arrays copy and pickle from its 2.5 on, the floor pyproject.toml sets.)
    xp = pytest.importorskip("array_api_strict")
    t = Tensor(xp.asarray([1.0, 2.0]), requires_grad=True)
    twin = copied(t)
    assert twin.xp is t.xp and twin.data is not t.data
    (twin * twin).sum().backward()
    assert xp.all(twin.grad == xp.asarray([2.0, 4.0]))


def test_a_module_written_as_in_pytorch_with_forward_is_told_to_name_it_call():
    # It read "'Net' object is not callable".
    from tinyad.scalar import nn as scalar_nn

    for base in (nn.Module, scalar_nn.Module):
        class Net(base):
            def forward(self, x):
                return x

        with pytest.raises(TypeError, match=r"Net must define __call__\(self, x\)"
                                            r".*forward\(self, x\) is __call__ here"):
            Net()(1.0)


def test_a_weight_in_pytorch_s_layout_is_named_with_its_transpose():
    with pytest.raises(ValueError, match=r"for one of shape \(nout, nin\) = \(2, 3\), "
                                         r"as PyTorch's nn\.Linear keeps it, pass weight\.T"):
        F.linear(Tensor(np.ones((4, 3))), Tensor(np.ones((2, 3)), requires_grad=True))


def test_a_network_shows_its_sizes_in_order():
    assert repr(nn.Linear(3, 5)) == "Linear(3, 5)"
    assert repr(nn.MLP(4, [8, 6, 2])) == "MLP(4-8-6-2)"
