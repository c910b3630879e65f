"""tinyad.optim: SGD and Adam on Values and Tensors, against torch.optim step for step,
and what they refuse."""

from __future__ import annotations

import inspect
import math
import re
import warnings

import array_api_strict
import numpy as np
import pytest

from tinyad import Tensor, Value
from tinyad.optim import SGD, Adam, Optimizer
from tinyad.scalar.nn import MLP
from tinyad.tensor import functional as F
from tinyad.tensor import nn
from torch_reference import needs_torch, torch  # tests/torch_reference.py

# -- on Values, step for step against torch.optim ---------------------------------------


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


def test_the_settings_left_out_are_pytorchs_defaults():
    # A learner who writes Adam(params), as PyTorch's examples do, gets PyTorch's steps.
    p = Value(1.0)
    adam, sgd = Adam([p]), SGD([p], lr=0.1)
    ours = (adam.lr, adam.betas, adam.eps, adam.weight_decay)
    assert ours == (1e-3, (0.9, 0.999), 1e-8, 0.0) and (sgd.momentum, sgd.weight_decay) == (0.0, 0.0)
    if torch is not None:
        theirs = torch.optim.Adam([torch.zeros(1, requires_grad=True)]).defaults
        assert ours == (theirs["lr"], theirs["betas"], theirs["eps"], theirs["weight_decay"])


def test_plain_sgd_step_by_hand():
    p = Value(1.0)
    p.grad = 0.5
    SGD([p], lr=0.1).step()
    assert p.data == 1.0 - 0.1 * 0.5


def _steps(make, grads, start=2.0):
    """A Value and a one-entry Tensor, each at ``start``, stepped by ``make([p])`` with the gradients
    ``grads`` set by hand, one per step: their data after each step, and the optimiser."""
    results = []
    for p in (Value(start), Tensor([start], requires_grad=True)):
        opt, after = make([p]), []
        for g in grads:
            p.grad = g if isinstance(p, Value) else np.array([g])
            opt.step()
            after.append(float(p.data) if isinstance(p, Value) else float(p.data[0]))
        results.append((after, opt))
    return results


@pytest.mark.parametrize("make, grads, expected", [
    # g = 0.5 + 0.01 * 2 = 0.52: 2 - 0.1 * 0.52.
    (lambda ps: SGD(ps, lr=0.1, weight_decay=0.01), [0.5], [1.948]),
    # The buffer starts as the first g, 0.52; then 0.9 * 0.52 + (0.5 + 0.01 * 1.948) = 0.98748.
    (lambda ps: SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01), [0.5, 0.5], [1.948, 1.948 - 0.098748]),
], ids=["weight decay", "momentum and weight decay"])
def test_sgd_steps_by_hand(make, grads, expected):
    # Without PyTorch these numbers are the only check of weight decay: its sign, or the term
    # itself, could be lost.
    for after, _ in _steps(make, grads):
        assert after == pytest.approx(expected, rel=1e-14)


def test_adam_steps_by_hand():
    # Gradients 1 then 3, betas (0.5, 0.75). Step 1: m = 0.5, v = 0.25, m_hat = v_hat = 1.
    # Step 2: m = 0.25 + 1.5 = 1.75, v = 0.1875 + 2.25 = 2.4375; bias corrections 1 - 0.5**2 and
    # 1 - 0.75**2, so m_hat = 1.75 / 0.75 = 7/3 and v_hat = 2.4375 / 0.4375 = 39/7. (The first step
    # alone is lr * g / (|g| + eps) whatever the betas: it cannot tell them apart.)
    eps = 1e-8
    first = 2.0 - 0.1 / (1.0 + eps)
    second = first - 0.1 * (7 / 3) / (math.sqrt(39 / 7) + eps)
    for after, opt in _steps(lambda ps: Adam(ps, lr=0.1, betas=(0.5, 0.75), eps=eps), [1.0, 3.0]):
        assert after == pytest.approx([first, second], rel=1e-14)
        state = opt.state[0]
        assert state["t"] == 2 and float(np.sum(state["m"])) == 1.75 and float(np.sum(state["v"])) == 2.4375


def test_adam_adds_weight_decay_to_the_gradient():
    # At -2 with gradient 0.5, weight decay 0.5 makes g = 0.5 - 1 = -0.5: the first step, of size
    # lr, goes up. Without the term, with its sign flipped, or decoupled (AdamW's p -= lr * wd * p
    # beside a step by 0.5), the parameter ends at -2.1 or -2.0 instead.
    for after, _ in _steps(lambda ps: Adam(ps, lr=0.1, weight_decay=0.5), [0.5], start=-2.0):
        assert after == pytest.approx([-2.0 + 0.1 * 0.5 / (0.5 + 1e-8)], rel=1e-14)


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
    with pytest.raises(ValueError, match="eps must be > 0"):
        Adam([p], eps=-1e-8)
    with pytest.raises(ValueError, match="eps must be > 0, got 0"):  # 0 / 0 for a zero gradient
        Adam([p], eps=0.0)
    with pytest.raises(ValueError, match="lr must be a finite number > 0, got an int of 401 digits"):
        SGD([p], lr=10**400)
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
    with pytest.raises(TypeError, match=r"got an MLP; pass its parameters: model.parameters\(\)"):
        SGD(MLP(2, [1]), lr=0.1)
    # It read "needs a list of parameters, got <bound method Module.parameters of MLP(...)>".
    with pytest.raises(TypeError, match=r"got the method parameters itself, not the list it returns: call it, "
                                        r"model\.parameters\(\)"):
        SGD(MLP(2, [1]).parameters, lr=0.1)
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


# -- on Tensors, step for step against torch.optim --------------------------------------

OPTIMISERS = {
    "sgd momentum weight decay": (
        lambda ps: SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
        lambda ps: torch.optim.SGD(ps, lr=0.1, momentum=0.9, weight_decay=0.01),
    ),
    "sgd plain": (lambda ps: SGD(ps, lr=0.05), lambda ps: torch.optim.SGD(ps, lr=0.05)),
    "adam weight decay": (
        lambda ps: Adam(ps, lr=0.01, weight_decay=0.1),
        lambda ps: torch.optim.Adam(ps, lr=0.01, weight_decay=0.1),
    ),
}


@needs_torch
@pytest.mark.parametrize("name", sorted(OPTIMISERS))
def test_optimisers_match_torch_step_for_step(name):
    make_ours, make_theirs = OPTIMISERS[name]
    model = nn.MLP(3, [4, 2], seed=5)
    reference = [torch.tensor(p.data, requires_grad=True) for p in model.parameters()]
    ours, theirs = make_ours(model.parameters()), make_theirs(reference)
    rng = np.random.default_rng(6)
    for step in range(5):
        x, labels = rng.normal(size=(8, 3)), rng.integers(0, 2, size=8)
        ours.zero_grad()
        F.cross_entropy(model(Tensor(x)), labels).backward()
        ours.step()
        theirs.zero_grad()
        w1, b1, w2, b2 = reference
        logits = torch.relu(torch.tensor(x) @ w1 + b1) @ w2 + b2
        torch.nn.functional.cross_entropy(logits, torch.tensor(labels)).backward()
        theirs.step()
        for p, r in zip(model.parameters(), reference):
            np.testing.assert_allclose(p.data, r.detach().numpy(), rtol=1e-10, atol=1e-12,
                                       err_msg=f"step {step}")


def test_optimiser_keeps_float32_and_skips_parameters_without_grad():
    model = nn.Linear(3, 2, seed=0, dtype=np.float32)
    before = model.b.data.copy()
    opt = SGD(model.parameters(), lr=0.1, momentum=0.9)
    (model.W * 1).sum().backward()  # only W gets a gradient
    opt.step()
    assert model.W.data.dtype == np.float32
    np.testing.assert_array_equal(model.b.data, before)


def test_adam_keeps_float32_in_its_state_and_parameters():
    model = nn.Linear(3, 2, seed=0, dtype=np.float32)
    opt = Adam(model.parameters(), lr=0.01, weight_decay=0.1)
    for _ in range(2):
        opt.zero_grad()
        F.mse(model(np.ones((4, 3))), np.zeros((4, 2))).backward()
        opt.step()
    assert all(p.data.dtype == np.float32 for p in model.parameters())
    assert all(s["m"].dtype == np.float32 and s["v"].dtype == np.float32 for s in opt.state)


@pytest.mark.parametrize("kind, empty", [("Value", "0.0"), ("Tensor", "None")])
def test_a_step_that_finds_no_gradient_warns_at_the_callers_line(kind, empty):
    # The classic slip of a training loop: backward, zero_grad, then step, which has nothing to
    # step by. A warning, not an error: a step without gradients is harmless, only useless.
    w, b = (Value(x) if kind == "Value" else Tensor(x, requires_grad=True) for x in (2.0, 1.0))
    opt = SGD([w, b], lr=0.1)
    (w * 3.0 + b).backward()
    opt.zero_grad()
    with pytest.warns(UserWarning, match=rf"SGD.step\(\) found no gradient in any of its 2 parameters \(each "
                                         rf"is {empty}\).*call loss.backward\(\) before step\(\).*not between "
                                         "the two") as caught:
        opt.step()
    assert caught[0].filename == __file__
    # A loop that does call backward, with an optimiser made for a model since made again:
    model = MLP(2, [1], seed=0)
    stale = SGD(model.parameters(), lr=0.1)
    model = MLP(2, [1], seed=0)  # the model's cell run again
    model([1.0, 2.0])[0].backward()
    with pytest.warns(UserWarning, match=r"the optimiser holds another model's parameters: a model made again "
                                         r"after its optimiser \(a notebook cell run again\) needs a new optimiser"):
        stale.step()
    with warnings.catch_warnings():  # one gradient is enough: a step with one says nothing
        warnings.simplefilter("error")
        (w * 3.0).backward()
        opt.step()
    assert float(w.data) == pytest.approx(2.0 - 0.1 * 3.0)


# -- the rule is a public method, one parameter at a time -------------------------------


def test_step_calls_update_once_per_parameter_with_its_own_state():
    calls = []

    class Recorder(Optimizer):
        def update(self, p, state):
            state["n"] = state.get("n", 0) + 1
            calls.append((p, state["n"]))

    a, b, c = Value(1.0), Tensor([1.0, 2.0], requires_grad=True), Tensor([3.0], requires_grad=True)
    a.grad, b.grad = 1.0, np.ones(2)  # c has no grad: skipped
    opt = Recorder([a, b, c], lr=0.1)
    opt.step()
    opt.step()
    assert [(p is a or p is b, n) for p, n in calls] == [(True, 1), (True, 1), (True, 2), (True, 2)]
    assert [s.get("n") for s in opt.state] == [2, 2, None]
    with pytest.raises(NotImplementedError, match="Optimizer must define update"):
        Optimizer([a], lr=0.1).step()


def test_adam_update_reads_as_the_rule():
    source = inspect.getsource(Adam.update)
    for words in ("First moment", "Second moment", "Bias correction", "sqrt(v_hat) + self.eps"):
        assert words in source


def test_adam_first_step_moves_each_weight_by_lr():
    # After one step m_hat = g and v_hat = g * g, so every weight moves by lr * g / (|g| + eps).
    p = Tensor([1.0, -2.0, 3.0], requires_grad=True)
    p.grad = np.array([0.5, -4.0, 1e-3])
    Adam([p], lr=0.1).step()
    expected = np.array([1.0, -2.0, 3.0]) - 0.1 * p.grad / (np.abs(p.grad) + 1e-8)
    np.testing.assert_allclose(p.data, expected, rtol=1e-15)


# -- what would corrupt a parameter is refused -----------------------------------------


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -float("inf"), np.float64("nan")])
@pytest.mark.parametrize(
    "make, name",
    [
        (lambda p, x: SGD([p], lr=x), "lr"),
        (lambda p, x: SGD([p], lr=0.1, momentum=x), "momentum"),
        (lambda p, x: SGD([p], lr=0.1, weight_decay=x), "weight_decay"),
        (lambda p, x: Adam([p], lr=x), "lr"),
        (lambda p, x: Adam([p], betas=(x, 0.999)), r"betas\[0\]"),
        (lambda p, x: Adam([p], betas=(0.9, x)), r"betas\[1\]"),
        (lambda p, x: Adam([p], eps=x), "eps"),
        (lambda p, x: Adam([p], weight_decay=x), "weight_decay"),
    ],
)
def test_settings_that_are_not_finite_are_refused(make, name, bad):
    with pytest.raises(ValueError, match=rf"{name} must be a finite number .*got -?(nan|inf)"):
        make(Value(1.0), bad)


@pytest.mark.parametrize("kind", ["Value", "Tensor"])
def test_a_parameter_that_is_not_a_leaf_is_refused(kind):
    leaf = Value(2.0) if kind == "Value" else Tensor([2.0], requires_grad=True)
    computed = leaf * 3
    for make in (lambda ps: SGD(ps, lr=0.1), lambda ps: Adam(ps)):
        with pytest.raises(ValueError, match=r"parameter 1 is not a leaf: it is the output of '\*'"):
            make([leaf, computed])
    SGD([leaf, computed.detach()], lr=0.1)  # detached: a new leaf, accepted


@pytest.mark.parametrize("kind", ["Value", "Tensor"])
def test_the_same_parameter_twice_is_refused(kind):
    p = Value(2.0) if kind == "Value" else Tensor([2.0], requires_grad=True)
    q = Value(2.0) if kind == "Value" else Tensor([2.0], requires_grad=True)
    with pytest.raises(ValueError, match="parameter 2 is the same object as parameter 0"):
        SGD([p, q, p], lr=0.1)
    with pytest.raises(ValueError, match="parameter 1 is the same object as parameter 0"):
        Adam([p, p])
    SGD([p, q], lr=0.1)  # equal numbers, different parameters: fine


@pytest.mark.parametrize("make", [lambda ps: SGD(ps, lr=0.1, momentum=0.9), lambda ps: Adam(ps)])
def test_a_grad_of_another_shape_is_refused_and_the_parameter_kept(make):
    w = Tensor(np.ones((3, 2)), requires_grad=True)
    v = Value(1.0)
    opt = make([v, w])
    w.grad = np.ones((2,))  # would broadcast: w.data would silently stay (3, 2)...
    v.grad = 1.0
    with pytest.raises(ValueError, match=r"parameter 1 has shape \(3, 2\) but its grad has shape \(2,\)"):
        opt.step()
    w.grad = np.ones((4, 3, 2))  # ... or silently become (4, 3, 2)
    with pytest.raises(ValueError, match=r"shape \(3, 2\) but its grad has shape \(4, 3, 2\)"):
        opt.step()
    assert w.shape == (3, 2)
    np.testing.assert_array_equal(w.data, np.ones((3, 2)))
    v.grad = np.ones(2)  # a Value's grad is one number
    w.grad = None
    with pytest.raises(TypeError, match=r"parameter 0 is a Value, but its gradient is an ndarray "
                                        r"\(array\(\[1\., 1\.\]\)\)"):
        opt.step()


def test_right_shapes_and_int_grads_still_step():
    v, w = Value(1.0), Tensor(np.ones((3, 2)), requires_grad=True)
    v.grad, w.grad = 2, np.full((3, 2), 0.5)  # a learner's int grad on a Value is fine
    SGD([v, w], lr=0.1).step()
    assert v.data == pytest.approx(0.8) and np.allclose(w.data, 0.95)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_a_gradient_that_is_not_finite_is_refused_and_the_parameter_kept(bad):
    p = Tensor([1.0, 2.0], requires_grad=True)
    v = Value(3.0)
    for param, grad in ((p, np.array([0.5, bad])), (v, float(bad))):
        optimiser = SGD([param], lr=0.1)
        param.grad = grad
        before = np.copy(param.data)
        with pytest.raises(ValueError, match="parameter 0"):
            optimiser.step()
        np.testing.assert_array_equal(param.data, before)


def test_numpy_settings_do_not_change_the_parameters_dtype():
    # A learning rate from np.logspace is an np.float64: stored as it is, it would turn float32
    # parameters into float64 and Value data into NumPy scalars.
    t = Tensor(np.ones(3, dtype=np.float32), requires_grad=True)
    v = Value(1.0)
    for opt in (SGD([t, v], lr=np.float64(0.1), momentum=np.float64(0.5)),
                Adam([t, v], lr=np.float64(0.1), betas=(np.float64(0.9), 0.99), eps=np.float64(1e-8))):
        t.grad, v.grad = np.ones(3, dtype=np.float32), 1.0
        opt.step()
        assert t.data.dtype == np.float32 and type(v.data) is float


_SGD = lambda ps, **kw: SGD(ps, **{"lr": 0.1, **kw})  # noqa: E731


@pytest.mark.parametrize("make, name, bad", [
    (_SGD, "lr", float("nan")),
    (_SGD, "lr", "0.1"),
    (_SGD, "momentum", -0.5),
    (_SGD, "weight_decay", float("inf")),
    (Adam, "lr", 0.0),
    (Adam, "betas", (0.9, 1.0)),
    (Adam, "betas", (np.nan, 0.999)),
    (Adam, "betas", (0.9,)),
    (Adam, "eps", float("nan")),
    (Adam, "weight_decay", -1.0),
])
def test_a_setting_changed_after_construction_is_checked_as_at_construction(make, name, bad):
    # A learning-rate schedule sets opt.lr between steps: a nan there would silently make
    # every parameter nan. The error is construction's, word for word, and nothing moves.
    p = Tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises((TypeError, ValueError)) as at_construction:
        make([p], **{name: bad})
    opt = make([p])
    p.grad = np.ones(2)
    with pytest.raises(type(at_construction.value), match=re.escape(str(at_construction.value))):
        setattr(opt, name, bad)
        opt.step()
    np.testing.assert_array_equal(p.data, [1.0, 2.0])


def test_a_setting_changed_to_a_good_value_is_used_as_a_float():
    p = Tensor(np.ones(2, dtype=np.float32), requires_grad=True)
    opt = Adam([p])
    opt.lr, opt.betas, opt.eps = np.float64(0.5), [0.5, np.float64(0.5)], 1
    assert (opt.lr, opt.betas, opt.eps) == (0.5, (0.5, 0.5), 1.0)
    assert type(opt.lr) is float and all(type(beta) is float for beta in opt.betas)
    p.grad = np.ones(2, dtype=np.float32)
    opt.step()
    assert p.dtype == np.float32 and p.data.tolist() == [0.75, 0.75]  # 1 - 0.5 * 1 / (1 + 1)


@pytest.mark.parametrize("kind, grad, what", [
    ("Tensor", [0.5, 0.5], "a list"),
    ("Tensor", "ab", "a str"),
    ("Tensor", np.array([1 + 1j, 0]), "an array of dtype complex128"),
    ("Value", "ab", "a str"),
    ("Value", [0.5], "a list"),
    ("Value", True, "a bool"),
])
def test_a_gradient_that_is_not_a_number_or_an_array_of_them_is_refused_by_its_type(kind, grad, what):
    p = Value(1.0) if kind == "Value" else Tensor([1.0, 2.0], requires_grad=True)
    before = np.copy(p.data)
    for opt in (SGD([Value(0.0), p], lr=0.1), Adam([Value(0.0), p])):
        p.grad = grad
        with pytest.raises(TypeError, match=rf"parameter 1's gradient is {what} \(.*\): a gradient is"):
            opt.step()
        np.testing.assert_array_equal(p.data, before)


@pytest.mark.parametrize("opt", [lambda ps: SGD(ps, lr=0.1), lambda ps: SGD(ps, lr=0.1, momentum=0.9), Adam])
def test_a_gradient_of_another_dtype_is_refused_and_the_parameter_kept(opt):
    # The update would have made a float32 parameter float64 without a word.
    p = Tensor(np.ones(2, dtype=np.float32), requires_grad=True)
    for grad, named in ((np.ones(2), "float64"), (np.array([1, 2]), "int64")):
        p.grad = grad
        with pytest.raises(TypeError, match=f"parameter 0 is float32 but its gradient is {named}: a gradient "
                                            "must have its parameter's dtype"):
            opt([p]).step()
        assert p.dtype == np.float32 and p.data.tolist() == [1.0, 1.0]


def test_a_values_gradient_of_another_kind_of_number_is_refused():
    # It would have become the Value's data: a NumPy float32, then every node after it.
    v = Value(1.0)
    v.grad = np.float32(0.5)
    with pytest.raises(TypeError, match=r"parameter 0 is a Value, but its gradient is a float32"):
        SGD([v], lr=0.1).step()
    assert v.data == 1.0 and type(v.data) is float


@pytest.mark.parametrize("make", [
    lambda params: SGD(params, lr=1e10),
    lambda params: SGD(params, lr=1e10, momentum=0.9),
], ids=["SGD", "SGD with momentum"])
def test_an_update_that_overflows_is_refused_and_the_parameter_and_its_state_kept(make):
    # A finite gradient too large for the step: SGD wrote inf into the parameter, in silence.
    t = Tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    v = Value(1.0)
    for param, small, huge in ((t, np.full(2, 1e-20, np.float32), np.full(2, 1e30, np.float32)),
                               (v, 1e-20, 1e300)):
        optimiser = make([param])
        param.grad = small
        optimiser.step()  # a step within range first, so that there is a state to keep
        before, state = np.copy(param.data), dict(optimiser.state[0])
        param.grad = huge
        with np.errstate(over="ignore", invalid="ignore"), \
                pytest.raises(OverflowError, match="the update of parameter 0 overflows the float type"):
            optimiser.step()
        np.testing.assert_array_equal(param.data, before)
        assert optimiser.state[0] == state  # the same objects (arrays compare by identity first)


def test_a_parameter_added_to_the_list_after_construction_is_refused_not_skipped():
    # step() paired the parameters with their states by zip, so one appended later was never updated.
    w, extra = Tensor([1.0], requires_grad=True), Tensor([2.0], requires_grad=True)
    optimiser = SGD([w], lr=0.1)
    optimiser.params.append(extra)
    extra.grad = np.array([1.0])
    with pytest.raises(RuntimeError, match="made with 1 parameters and now lists 2: make a new one"):
        optimiser.step()


def test_an_update_of_ones_own_that_overflows_in_place_says_the_parameter_holds_it():
    # The data is restored by rebinding it; an update that wrote into the array itself cannot be
    # undone, and the error said "left as they were" over a parameter of -inf.
    class InPlace(Optimizer):
        def update(self, p, state):
            p.data -= self.lr * p.grad

    w = Tensor(np.ones(2, np.float32), requires_grad=True)
    w.grad = np.full(2, 1e30, np.float32)
    with np.errstate(over="ignore"), pytest.raises(OverflowError, match="changed parameter 0's array in "
                                                                         "place, where the change stays"):
        InPlace([w], lr=1e10).step()


def test_a_parameter_released_by_backward_is_still_refused():
    # backward releases an interior node's parents, after which it looked like a leaf.
    w = Tensor([2.0], requires_grad=True)
    h = w * 3
    h.sum().backward()
    assert h.parents == ()
    with pytest.raises(ValueError, match=r"parameter 1 is not a leaf: it is the output of '\*'"):
        SGD([w, h], lr=0.1)


@pytest.mark.parametrize("make", [lambda ps: SGD(ps, lr=0.1), lambda ps: Adam(ps, lr=0.1)],
                         ids=["SGD", "Adam"])
def test_a_0d_parameter_stays_an_array_and_takes_a_second_gradient(make):
    # NumPy's arithmetic on a 0-d array gives a NumPy scalar: after one step the parameter's
    # data was one, and the next backward that added into its gradient twice called it a
    # gradient set by hand.
    w = Tensor(0.5, requires_grad=True)
    optimiser = make([w])
    x, y = Tensor([1.0, 2.0, 3.0]), Tensor([2.0, 4.0, 6.0])
    for _ in range(3):
        optimiser.zero_grad()
        (F.mse(w * x, y) + 0.01 * (w * w)).backward()
        optimiser.step()
        assert type(w.data) is np.ndarray and w.data.shape == ()
    assert type(w.grad) is np.ndarray


def test_a_step_is_all_or_nothing():
    # A nan on parameter 1 left parameter 0 updated (and Adam's count of its steps advanced), so
    # the run went on differently from one that never met the nan.
    def run(with_failure):
        a, b = Tensor([1.0, 2.0], requires_grad=True), Tensor([1.0], requires_grad=True)
        optimiser = Adam([a, b], lr=0.1)
        if with_failure:
            a.grad, b.grad = np.ones(2), np.array([np.nan])
            with pytest.raises(ValueError, match="parameter 1 has a gradient with 1 nan or inf entries.*every "
                                                 "parameter and state is left as it was before this step"):
                optimiser.step()
        a.grad, b.grad = np.ones(2), np.array([1.0])
        optimiser.step()
        return a.data, b.data, [dict(s) for s in optimiser.state]

    failed, clean = run(True), run(False)
    np.testing.assert_array_equal(failed[0], clean[0])
    np.testing.assert_array_equal(failed[1], clean[1])
    assert [s["t"] for s in failed[2]] == [s["t"] for s in clean[2]] == [1, 1]


def test_a_wrong_gradient_on_a_later_parameter_moves_none():
    a, b = Tensor([1.0, 2.0], requires_grad=True), Tensor([1.0], requires_grad=True)
    optimiser = SGD([a, b], lr=0.1, momentum=0.9)
    a.grad, b.grad = np.ones(2), np.ones(3)
    with pytest.raises(ValueError, match="parameter 1 has shape"):
        optimiser.step()
    np.testing.assert_array_equal(a.data, [1.0, 2.0])
    assert optimiser.state == [{}, {}]


def test_an_update_of_ones_own_that_raises_puts_back_what_it_moved():
    class Fails(SGD):
        def update(self, p, state):
            super().update(p, state)
            if p is second:
                raise KeyError("a slip in an update of one's own")

    first, second = Tensor([1.0], requires_grad=True), Tensor([2.0], requires_grad=True)
    first.grad, second.grad = np.ones(1), np.ones(1)
    optimiser = Fails([first, second], lr=0.1, momentum=0.5)
    with pytest.raises(KeyError, match="a slip"):
        optimiser.step()
    assert (first.data, second.data) == (1.0, 2.0) and optimiser.state == [{}, {}]


def test_a_state_changed_in_place_is_named_not_promised_back():
    class InPlaceMomentum(SGD):
        def update(self, p, state):
            buffer = state.setdefault("buffer", np.zeros_like(p.data))
            buffer *= self.momentum
            buffer += p.grad
            p.data = p.data - self.lr * buffer

    q = Tensor([1.0, 2.0], requires_grad=True)
    optimiser = InPlaceMomentum([q], lr=0.1, momentum=0.9)
    q.grad = np.ones(2)
    optimiser.step()
    q.grad = np.array([np.nan, 1.0])
    with pytest.raises(ValueError, match=r"changed parameter 0's state\['buffer'\] in place, where the "
                                         "change stays"):
        optimiser.step()


def test_a_number_as_a_0d_tensors_gradient_is_named():
    p = Tensor(1.0, requires_grad=True)
    p.grad = 0.5
    with pytest.raises(TypeError, match=r"parameter 0 is a numpy array of shape \(\), but its gradient is "
                                        r"a float \(0.5\)"):
        SGD([p], lr=0.1).step()


def test_an_int_gradient_beyond_a_float_is_named():
    v = Value(1.0)
    v.grad = 10**400
    with pytest.raises(ValueError, match="parameter 0's gradient needs a finite number, got an int of 401 digits"):
        SGD([v], lr=0.1).step()
    assert v.data == 1.0


def test_the_momentum_buffer_is_its_own_array():
    # Kept as the gradient itself, it changed with it: p.grad *= 0.5 (a learner's clipping) or a
    # second backward's in-place sum reached into the buffer.
    p = Tensor([1.0], requires_grad=True)
    opt = SGD([p], lr=0.1, momentum=0.9)
    (p * 1.0).sum().backward()
    opt.step()  # buffer 1, p 0.9
    p.grad *= 0.5
    opt.step()  # buffer 0.9 * 1 + 0.5 = 1.4, p 0.9 - 0.14 = 0.76
    np.testing.assert_allclose(opt.state[0]["buffer"], [1.4], rtol=1e-15)
    np.testing.assert_allclose(p.data, [0.76], rtol=1e-15)


def test_a_setting_of_true_is_refused():
    p = Tensor([1.0], requires_grad=True)
    with pytest.raises(TypeError, match="lr must be a number, got True"):
        SGD([p], lr=True)
    with pytest.raises(TypeError, match="momentum must be a number, got True"):
        SGD([p], lr=0.1, momentum=True)


@pytest.mark.parametrize("resized", [(1, 3), (3, 3)])
@pytest.mark.parametrize("make", [lambda ps: Adam(ps, lr=0.1), lambda ps: SGD(ps, lr=0.1, momentum=0.9)],
                         ids=["Adam", "SGD with momentum"])
def test_a_parameter_resized_after_a_step_is_named_not_grown_by_the_old_state(make, resized):
    # Resized to (1, 3), the state of shape (2, 3) broadcast into the step and the parameter came
    # back (2, 3), in silence; resized to (3, 3), NumPy's "operands could not be broadcast together".
    w = Tensor(np.ones((2, 3)), requires_grad=True)
    optimiser = make([w])
    w.grad = np.ones((2, 3))
    optimiser.step()
    w.data, w.grad = np.zeros(resized), np.ones(resized)
    with pytest.raises(ValueError, match=rf"parameter 0 has shape \({resized[0]}, 3\), but the optimiser's state "
                                         r"for it \((m, v|buffer)\) has shape \(2, 3\).*Make a new optimiser"):
        optimiser.step()
    assert w.data.shape == resized and np.array_equal(w.data, np.zeros(resized))  # put back as it was


@pytest.mark.parametrize("first, resized", [((1,), (3,)), ((1, 1), (2, 3)), ((), (3,))])
@pytest.mark.parametrize("make, stale", [(lambda ps: Adam(ps, lr=0.1), "m, v"),
                                         (lambda ps: SGD(ps, lr=0.1, momentum=0.9), "buffer")],
                         ids=["Adam", "SGD with momentum"])
def test_a_parameter_grown_after_a_step_is_not_stepped_by_its_old_state_broadcast(make, stale, first, resized):
    # The state of shape (1,) broadcast into the step of a parameter grown to (3,): every entry moved
    # by the momentum of the old one, in silence.
    w = Tensor(np.ones(first), requires_grad=True)
    optimiser = make([w])
    w.grad = np.ones(first)
    optimiser.step()
    w.data, w.grad = np.zeros(resized), np.ones(resized)
    with pytest.raises(ValueError, match=rf"parameter 0 has shape {re.escape(str(resized))}, but the optimiser's "
                                         rf"state for it \({stale}\) has shape {re.escape(str(first))}"):
        optimiser.step()
    assert np.array_equal(w.data, np.zeros(resized))  # put back as it was


@pytest.mark.parametrize("make, stale", [(lambda ps: Adam(ps, lr=0.1), "m, v"),
                                         (lambda ps: SGD(ps, lr=0.1, momentum=0.9), "buffer")],
                         ids=["Adam", "SGD with momentum"])
@pytest.mark.parametrize("convert, now, then", [
    (lambda a: a.astype(np.float32), "has dtype float32", "has dtype float64"),
    (lambda a: array_api_strict.asarray(a), "is an array_api_strict array", "is a numpy array"),
], ids=["to float32", "to array_api_strict"])
def test_a_parameter_converted_after_a_step_is_named_not_blamed_on_its_update(make, stale, convert, now, then):
    # Made float32, the state of float64 turned the update float64, and the step was refused as
    # an update that changed the parameter's dtype; made another library's, NumPy's or the
    # library's own words from inside the update.
    w = Tensor(np.ones(3), requires_grad=True)
    optimiser = make([w])
    w.grad = np.ones(3)
    optimiser.step()
    w.data, w.grad = convert(np.zeros(3)), convert(np.ones(3))
    kept = w.data
    with pytest.raises(ValueError, match=rf"parameter 0 {now}, but the optimiser's state for it \({stale}\) "
                                         rf"{then}: the parameter changed .* after the optimiser last stepped it"):
        optimiser.step()
    assert w.data is kept  # put back as it was


@pytest.mark.parametrize("make", [lambda ps: Adam(ps, lr=0.1), lambda ps: SGD(ps, lr=0.1, momentum=0.9)],
                         ids=["Adam", "SGD with momentum"])
def test_a_values_state_is_not_asked_for_a_shape(make, monkeypatch):
    # A Value's number has no shape to outgrow; asking its state (is_array of each number) made
    # a step over 50 Values three times as long (SGD with momentum 54 to 166 us, Adam 81 to 225 us).
    def asked(data, state):
        raise AssertionError("a Value's state asked for its shape")

    monkeypatch.setattr("tinyad.optim._stale_state", asked)
    v = Value(1.0)
    optimiser = make([v])
    for _ in range(2):  # the second finds a state
        v.grad = 1.0
        optimiser.step()
    assert v.data < 1.0


def test_the_parameter_lists_an_optimiser_is_wrongly_given_are_named_with_what_to_pass():
    from tinyad.tensor.nn import MLP as TensorMLP

    model = TensorMLP(2, [3, 1], seed=0)
    used = (p for p in model.parameters())
    SGD(used, lr=0.1)
    # Each was "the optimiser got an empty list", "parameter 0 is a str", "... is a Linear", "... is a list".
    with pytest.raises(ValueError, match=r"an empty generator: a generator gives its items once.*Pass a list"):
        SGD(used, lr=0.1)
    with pytest.raises(TypeError, match=r"got a dict; pass its parameters, list\(d\.values\(\)\)"):
        SGD({"w": model.parameters()[0]}, lr=0.1)
    with pytest.raises(TypeError, match=r"parameter 0 is a Linear.*it is a module: pass the parameters"):
        SGD(model.layers, lr=0.1)
    with pytest.raises(TypeError, match=r"parameter 0 is a list.*a list of 4 parameters: pass one flat list"):
        SGD([model.parameters()], lr=0.1)
    # The article is the one the type's name is read with: it read "is a int" (and "got a MLP").
    with pytest.raises(TypeError, match=r"parameter 1 is an int: parameters are Values or Tensors"):
        SGD([model.parameters()[0], 3], lr=0.1)


def test_a_setting_under_another_name_or_misspelt_is_refused_not_ignored():
    # opt.learning_rate = 0.01 (Keras's name) was stored beside lr and never read: a schedule that
    # changed nothing, silently.
    opt = SGD([Value(1.0)], lr=0.1, momentum=0.9)
    with pytest.raises(AttributeError, match=r"SGD has no setting 'learning_rate': set so, it would change "
                                             r"nothing; the setting is 'lr' "
                                             r"\(its settings: lr, momentum, weight_decay\)"):
        opt.learning_rate = 0.01
    with pytest.raises(AttributeError, match=r"no setting 'momentun'.*the setting is 'momentum'"):
        opt.momentun = 0.5
    with pytest.raises(AttributeError, match=r"no setting 'LR'.*the setting is 'lr'"):
        opt.LR = 0.01
    with pytest.raises(AttributeError, match=r"not PyTorch's param_groups: .*opt\.lr = 0\.01"):
        opt.param_groups  # noqa: B018
    with pytest.raises(AttributeError, match=r"not PyTorch's param_groups"):
        opt.param_groups = [{"lr": 0.01}]
    with pytest.raises(AttributeError, match=r"SGD has no setting 'step'"):
        opt.step = 0.1  # a method, not a setting: accepted, it broke the optimiser
    with pytest.raises(AttributeError, match=r"no setting 'steps': set so, it would change nothing \(its settings"):
        Adam([Value(1.0)], lr=0.1).steps = 3  # not "the setting is 'eps'"
    opt.lr = 0.05
    assert opt.lr == 0.05
    adam = Adam([Value(1.0)], lr=0.1)
    adam.betas = (0.8, 0.9)
    with pytest.raises(AttributeError, match=r"Adam has no setting 'beta'.*'betas'"):
        adam.beta = (0.8, 0.9)

    class Mine(SGD):  # an optimiser of one's own keeps the attributes it sets
        def update(self, p, state):
            self.calls = getattr(self, "calls", 0) + 1
            super().update(p, state)

    mine = Mine([Value(1.0)], lr=0.1)
    mine.params[0].grad = 1.0
    mine.step()
    assert mine.calls == 1


@pytest.mark.parametrize("written, kind", [(lambda a: float(a.sum()), "float"), (lambda a: a.tolist(), "list")],
                         ids=["float", "list"])
def test_an_update_of_ones_own_that_writes_no_array_into_a_tensor_is_refused_and_put_back(written, kind):
    class Unshaped(SGD):
        def update(self, p, state):
            p.data = written(p.data - self.lr * p.grad)

    p = Tensor([1.0, 2.0], requires_grad=True)
    (p * p).sum().backward()
    kept = p.data
    with pytest.raises(TypeError, match=rf"the update made parameter 0's data a {kind} \(.*\), where it was an "
                                        r"array of shape \(2,\): an update writes an array"):
        Unshaped([p], lr=0.1).step()
    assert p.data is kept


@pytest.mark.parametrize("written, error, words", [
    (lambda a: a.astype(np.int64), TypeError,
     r"the update made parameter 0's data a numpy array of int64, where its gradient is a numpy array of float32"),
    (lambda a: a.astype(np.float64), TypeError,
     r"the update made parameter 0's data a numpy array of float64, where its gradient is a numpy array of float32"),
    (lambda a: Tensor(a), TypeError,  # p.data = p - lr * p.grad, .data forgotten
     r"the update made parameter 0's data a Tensor \(Tensor\(\[0\.8"),
    (lambda a: a.reshape(1, -1), ValueError, r"the update changed parameter 0's shape from \(2,\) to \(1, 2\)"),
], ids=["ints", "float64", "Tensor", "shape"])
def test_an_update_of_ones_own_that_changes_a_tensors_kind_is_refused_and_put_back(written, error, words):
    class Converting(SGD):
        def update(self, p, state):
            p.data = written(p.data - self.lr * p.grad)

    p = Tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    (p * p).sum().backward()
    kept = p.data
    with pytest.raises(error, match=words):
        Converting([p], lr=0.1).step()
    assert p.data is kept


def test_an_update_of_ones_own_that_writes_an_array_into_a_value_is_refused_and_put_back():
    class Arraying(SGD):
        def update(self, p, state):
            p.data = np.full(2, p.data - self.lr * p.grad)

    v = Value(1.0)
    (v * v).backward()
    with pytest.raises(TypeError, match=r"the update made parameter 0's data an ndarray \(array\(\[0\.8, 0\.8\]\)\), "
                                        r"where it was a number"):
        Arraying([v], lr=0.1).step()
    assert v.data == 1.0


@pytest.mark.parametrize("make", [SGD, Adam], ids=["SGD", "Adam"])
def test_a_0d_tensor_whose_gradient_was_clipped_with_numpy_steps_and_stays_an_array(make):
    # np.clip of a 0-d gradient gives NumPy's float; the step took the Tensor for a Value, made its
    # data a Python float, and the next forward pass called that a .data set by hand.
    w, b = Tensor(np.ones(2), requires_grad=True), Tensor(1.0, requires_grad=True)
    optimiser = make([w, b], lr=0.1)
    for _ in range(3):
        optimiser.zero_grad()
        (w * b).sum().backward()
        b.grad = np.clip(b.grad, -0.5, 0.5)
        assert isinstance(b.grad, np.float64)
        optimiser.step()
        assert type(b.data) is np.ndarray and b.data.shape == ()


@pytest.mark.parametrize("make", [SGD, Adam], ids=["SGD", "Adam"])
def test_a_0d_tensor_whose_data_became_numpys_float_steps_and_stays_an_array(make):
    # The step made it a Python float, and the next op called that a .data set by hand.
    b = Tensor(1.0, requires_grad=True)
    (b * b).backward()
    b.data = b.data - 0.1 * b.grad  # NumPy's arithmetic on a 0-d array gives a NumPy float
    assert isinstance(b.data, np.float64)
    make([b], lr=0.1).step()
    assert type(b.data) is np.ndarray and b.data.shape == ()
    assert (b * 3.0).item() == pytest.approx(3 * float(b.data))


def test_a_parameter_whose_data_was_set_by_hand_to_what_no_parameter_holds_is_named():
    # It read "parameter 0 is a Value, but its gradient is an ndarray", for a Tensor.
    p = Tensor([1.0, 2.0], requires_grad=True)
    (p * p).sum().backward()
    p.data = [1.0, 2.0]
    with pytest.raises(TypeError, match=r"parameter 0's data is a list \(\[1\.0, 2\.0\]\), "
                                        r"set by hand \(p\.data = \.\.\.\)"):
        SGD([p], lr=0.1).step()
    scalar = Tensor(3.0, requires_grad=True)  # a 0-d Tensor's data set to a float: it was called a Value
    (scalar * scalar).backward()
    scalar.data = 0.5
    with pytest.raises(TypeError, match=r"parameter 0's data is a float \(0\.5\), set by hand"):
        SGD([scalar], lr=0.1).step()
    zero_d = Value(1.0)  # a Value given a 0-d array for a gradient: it was called its data set by hand
    zero_d.grad = np.array(2.0)
    with pytest.raises(TypeError, match=r"parameter 0 is a Value, but its gradient is an ndarray"):
        SGD([zero_d], lr=0.1).step()
    huge = Value(1.0)  # data beyond any float: "int too large to convert to float" from inside the update
    huge.grad, huge.data = 1.0, 10**400
    with pytest.raises(ValueError, match=r"parameter 0.s data"):
        SGD([huge], lr=0.1).step()
    numpys = Value(1.0)  # a Value given NumPy's float for a gradient: "changed its shape from () to ()"
    numpys.grad = np.float64(2.0)
    sgd = SGD([numpys], lr=0.1)
    sgd.step()
    assert type(numpys.data) is float and numpys.data == pytest.approx(0.8)
    numpys.zero_grad()
    (numpys * 2).backward()  # a float gradient at the next step: it was "a numpy array of shape ()"
    sgd.step()
    assert numpys.data == pytest.approx(0.6)
    v = Value(1.0)  # a Value's data set to a whole number is a number still: it was refused
    (v * v).backward()
    v.data = 2
    SGD([v], lr=0.1).step()
    assert v.data == pytest.approx(1.8)


@pytest.mark.parametrize("make, after", [(SGD, 1.0 - 0.1 * 4.0), (Adam, 1.0 - 0.1)], ids=["SGD", "Adam"])
def test_a_values_data_made_numpys_float_steps_and_becomes_a_number_again(make, after):
    # np.clip of a Value's number gives NumPy's float: the step said "parameter 0 is a numpy array of
    # shape (), but its gradient is a float: a Tensor's gradient is an array".
    v = Value(2.0)
    (v * v).backward()
    v.data = np.clip(v.data, -1.0, 1.0)
    make([v], lr=0.1).step()
    assert type(v.data) is float and v.data == pytest.approx(after)


@pytest.mark.parametrize("data, words", [
    (np.array(2.0), r"an ndarray \(array\(2\.\)\)"),  # it read as a 0-d Tensor's
    (np.array([1.0, 2.0]), r"an ndarray \(array\(\[1\., 2\.\]\)\)"),  # "parameter 0 has shape (2,)"
    ([1.0], r"a list \(\[1\.0\]\)"),  # "parameter 0 has shape (1,)"
], ids=["0-d array", "array", "list"])
def test_a_values_data_set_by_hand_to_an_array_or_a_list_is_named_as_a_values(data, words):
    v = Value(1.0)
    v.grad, v.data = 1.0, data
    with pytest.raises(TypeError, match=rf"parameter 0's data is {words}, set by hand \(p\.data = \.\.\.\): a "
                                        r"Value's data is a number"):
        SGD([v], lr=0.1).step()
    assert v.data is data


@pytest.mark.parametrize("set_to, words", [
    (lambda p: 0.5, r"a float \(0\.5\)"),  # read as "parameter 0 has shape () but its grad has shape (2,)"
    (lambda p: np.array([1, 2]), r"an array of int64"),  # "... its gradient is float64: convert it first"
    (lambda p: np.array([1.0, 2.0], dtype=np.float16), r"an array of float16"),
    (lambda p: p - 0.1 * p.grad, r"a Tensor \(p\.data = p - lr \* p\.grad makes one: write p\.data -= lr \* p\.grad\)"),
], ids=["number", "ints", "float16", "Tensor"])
def test_a_tensors_data_set_by_hand_is_named_before_its_gradients_shape_or_dtype(set_to, words):
    p = Tensor([1.0, 2.0], requires_grad=True)
    (p * p).sum().backward()
    p.data = set_to(p)
    with pytest.raises(TypeError, match=rf"parameter 0's data is {words}, set by hand \(p\.data = \.\.\.\): a "
                                        r"Tensor's data is an array of float32 or float64"):
        SGD([p], lr=0.1).step()


def test_a_tinyad_tensor_set_as_a_gradient_is_not_called_pytorch_s():
    # in_torch_graph answered True for any object with requires_grad True, a Tensor of tinyad's too.
    from tinyad.tensor.backend import in_torch_graph

    assert not in_torch_graph(Tensor([1.0], requires_grad=True))
    if torch is not None:
        assert in_torch_graph(torch.ones(1, requires_grad=True)) and not in_torch_graph(torch.ones(1))


def test_a_refused_step_after_others_says_nothing_was_changed_in_place():
    # Adam's moments are arrays kept from the step before; the update makes new ones, so a refused
    # step puts them back whole and must not say they stay changed.
    p = Tensor([1.0, 2.0], requires_grad=True)
    optimiser = Adam([p], lr=0.1)
    p.grad = np.ones(2)
    optimiser.step()
    kept = {key: value.copy() if isinstance(value, np.ndarray) else value for key, value in optimiser.state[0].items()}
    p.grad = np.array([np.nan, 1.0])
    with pytest.raises(ValueError, match=r"nan or inf entries: the update would write nan or inf into it; every "
                                         r"parameter and state is left as it was before this step$"):
        optimiser.step()
    assert kept.keys() == optimiser.state[0].keys()
    for key, value in kept.items():
        np.testing.assert_array_equal(optimiser.state[0][key], value)
