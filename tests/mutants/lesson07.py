"""Plausible answers to lesson 07's exercises: each wrong one must fail its check, each right one pass.

``tests/test_mutants_lesson07.py`` runs every entry against the check cells of
``solutions/07_numerics.ipynb``.
"""

MUTANTS = {
    "logsumexp_stable": {
        "wrong": [
            # the naive formula: exp(1000) overflows
            "def logsumexp_stable(x, axis=-1):\n"
            "    return np.log(np.sum(np.exp(x), axis=axis))\n",
            # the axis kept: shape (1,) instead of ()
            "def logsumexp_stable(x, axis=-1):\n"
            "    m = np.max(x, axis=axis, keepdims=True)\n"
            "    return m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))\n",
            # one maximum for the whole array: a column far below it sums to 0, and log(0)
            "def logsumexp_stable(x, axis=-1):\n"
            "    m = np.max(x)\n"
            "    return m + np.log(np.sum(np.exp(x - m), axis=axis))\n",
            # the maximum subtracted and never added back
            "def logsumexp_stable(x, axis=-1):\n"
            "    m = np.max(x, axis=axis, keepdims=True)\n"
            "    return np.log(np.sum(np.exp(x - m), axis=axis))\n",
            # the maximum of the absolute values: [-1000, -1001] shifts by 1001 the wrong way
            "def logsumexp_stable(x, axis=-1):\n"
            "    m = np.max(np.abs(np.where(np.isinf(x), 0, x)), axis=axis, keepdims=True)\n"
            "    return np.squeeze(m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)), axis)\n",
        ],
        "right": [
            "def logsumexp_stable(x, axis=-1):\n"
            "    m = np.max(x, axis=axis)\n"
            "    shifted = np.exp(x - np.expand_dims(m, axis))\n"
            "    return m + np.log(shifted.sum(axis=axis))\n",
        ],
    },
    "cross_entropy_with_grad": {
        "wrong": [
            # log of the (shifted) softmax: exp(-2000) rounds to 0, and log(0)
            "def cross_entropy_with_grad(logits, labels):\n"
            "    batch = logits.shape[0]\n"
            "    e = np.exp(logits - logits.max(axis=1, keepdims=True))\n"
            "    p = e / e.sum(axis=1, keepdims=True)\n"
            "    rows = np.arange(batch)\n"
            "    grad = p.copy()\n"
            "    grad[rows, labels] -= 1\n"
            "    return float(-np.log(p[rows, labels]).mean()), grad / batch\n",
            # no shift at all: exp(1000) overflows
            "def cross_entropy_with_grad(logits, labels):\n"
            "    batch = logits.shape[0]\n"
            "    e = np.exp(logits)\n"
            "    s = e.sum(axis=1, keepdims=True)\n"
            "    rows = np.arange(batch)\n"
            "    grad = e / s\n"
            "    grad[rows, labels] -= 1\n"
            "    return float(np.mean(np.log(s[:, 0]) - logits[rows, labels])), grad / batch\n",
            # the gradient of the sum, not of the mean
            "def cross_entropy_with_grad(logits, labels):\n"
            "    batch = logits.shape[0]\n"
            "    m = logits.max(axis=1, keepdims=True)\n"
            "    e = np.exp(logits - m)\n"
            "    s = e.sum(axis=1, keepdims=True)\n"
            "    rows = np.arange(batch)\n"
            "    loss = np.mean(m[:, 0] + np.log(s[:, 0]) - logits[rows, labels])\n"
            "    grad = e / s\n"
            "    grad[rows, labels] -= 1\n"
            "    return float(loss), grad\n",
            # the sign of the one-hot term flipped
            "def cross_entropy_with_grad(logits, labels):\n"
            "    batch = logits.shape[0]\n"
            "    m = logits.max(axis=1, keepdims=True)\n"
            "    e = np.exp(logits - m)\n"
            "    s = e.sum(axis=1, keepdims=True)\n"
            "    rows = np.arange(batch)\n"
            "    loss = np.mean(m[:, 0] + np.log(s[:, 0]) - logits[rows, labels])\n"
            "    grad = e / s\n"
            "    grad[rows, labels] += 1\n"
            "    return float(loss), grad / batch\n",
            # the loss summed over the batch instead of averaged
            "def cross_entropy_with_grad(logits, labels):\n"
            "    batch = logits.shape[0]\n"
            "    m = logits.max(axis=1, keepdims=True)\n"
            "    e = np.exp(logits - m)\n"
            "    s = e.sum(axis=1, keepdims=True)\n"
            "    rows = np.arange(batch)\n"
            "    loss = np.sum(m[:, 0] + np.log(s[:, 0]) - logits[rows, labels])\n"
            "    grad = e / s\n"
            "    grad[rows, labels] -= 1\n"
            "    return float(loss), grad / batch\n",
        ],
        "right": [
            "def cross_entropy_with_grad(logits, labels):\n"
            "    batch = len(labels)\n"
            "    lse = np.logaddexp.reduce(logits, axis=1)\n"
            "    rows = np.arange(batch)\n"
            "    grad = np.exp(logits - lse[:, None])\n"
            "    grad[rows, labels] -= 1\n"
            "    return float(np.mean(lse - logits[rows, labels])), grad / batch\n",
        ],
    },
    "sigmoid_stable": {
        "wrong": [
            # exp(-x) overflows for x = -1e4
            "def sigmoid_stable(x):\n"
            "    return 1 / (1 + np.exp(-x))\n",
            # exp(x) overflows for x = 1e4
            "def sigmoid_stable(x):\n"
            "    return np.exp(x) / (1 + np.exp(x))\n",
            # both branches of np.where are computed everywhere: each overflows somewhere
            "def sigmoid_stable(x):\n"
            "    return np.where(x >= 0, 1 / (1 + np.exp(-x)), np.exp(x) / (1 + np.exp(x)))\n",
            # clipping: sigmoid(-50) becomes sigmoid(-30)
            "def sigmoid_stable(x):\n"
            "    return 1 / (1 + np.exp(-np.clip(x, -30, 30)))\n",
            # 1 - (something close to 1) loses the small values: sigmoid(-50) = 0
            "def sigmoid_stable(x):\n"
            "    z = np.exp(-np.abs(x))\n"
            "    return np.where(x >= 0, 1 / (1 + z), 1 - 1 / (1 + z))\n",
            # the tanh identity: stable, but 1 + tanh(-25) rounds to 0
            "def sigmoid_stable(x):\n"
            "    return 0.5 * (1 + np.tanh(x / 2))\n",
            # float64 whatever the input
            "def sigmoid_stable(x):\n"
            "    x = np.asarray(x, dtype=np.float64)\n"
            "    z = np.exp(-np.abs(x))\n"
            "    return np.where(x >= 0, 1 / (1 + z), z / (1 + z))\n",
        ],
        "right": [
            "def sigmoid_stable(x):\n"
            "    return np.exp(-np.logaddexp(0, -x))\n",
            "def sigmoid_stable(x):\n"
            "    z = np.exp(-np.abs(x))\n"
            "    return np.where(x >= 0, 1 / (1 + z), z / (1 + z))\n",
        ],
    },
    "central_difference_step": {
        "wrong": [
            "def central_difference_step(eps):\n    return 1e-6\n",  # gradcheck's default
            "def central_difference_step(eps):\n    return eps ** 0.5\n",  # the forward difference's
            "def central_difference_step(eps):\n    return eps\n",
            "def central_difference_step(eps):\n    return 1e-2\n",
            "def central_difference_step(eps):\n    return eps ** 0.25\n",
            "def central_difference_step(eps):\n    return 0.1 * eps ** (1 / 3)\n",
        ],
        "right": [
            "def central_difference_step(eps):\n    return (3 * eps) ** (1 / 3)\n",
            "def central_difference_step(eps):\n    return 2 * eps ** (1 / 3)\n",
        ],
    },
}
