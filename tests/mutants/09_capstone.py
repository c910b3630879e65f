"""Wrong answers that lesson 09's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # a mini-batch iterator
        "wrong": {
            "the last short batch dropped": [("range(0, n, batch_size)", "range(0, n - batch_size + 1, batch_size)")],
            "sizes evened out by array_split": """
                order = np.random.default_rng(seed).permutation(n)
                return np.array_split(order, -(-n // batch_size))
            """,
            "each batch drawn on its own": """
                rng = np.random.default_rng(seed)
                return [rng.permutation(n)[:min(batch_size, n - start)] for start in range(0, n, batch_size)]
            """,
            "drawn with replacement": """
                rng = np.random.default_rng(seed)
                return [rng.integers(0, n, size=min(batch_size, n - start)) for start in range(0, n, batch_size)]
            """,
            "the seed ignored": [("np.random.default_rng(seed).permutation(n)", "np.random.permutation(n)")],
            "not shuffled": [("np.random.default_rng(seed).permutation(n)", "np.arange(n)")],
            "one fixed seed": [("default_rng(seed)", "default_rng(0)")],
            "shuffled once, the order kept for every later call": """
                kept = batches.__dict__.setdefault("order", {})
                order = kept.setdefault(n, np.random.default_rng(seed).permutation(n))
                return [order[start:start + batch_size] for start in range(0, n, batch_size)]
            """,
        },
        "right": """
            order = np.arange(n)
            np.random.default_rng(seed).shuffle(order)
            return np.split(order, range(batch_size, n, batch_size))
        """,
    },
    2: {  # Adam by hand
        "wrong": {
            "no bias correction": [("lr * m_hat / (np.sqrt(v_hat) + eps)", "lr * state['m'] / (np.sqrt(state['v']) + eps)")],
            "eps inside the square root": [("(np.sqrt(v_hat) + eps)", "np.sqrt(v_hat + eps)")],
            "beta1 and beta2 swapped": """
                state["t"] = state.get("t", 0) + 1
                state["m"] = beta2 * state.get("m", 0.0) + (1 - beta2) * g
                state["v"] = beta1 * state.get("v", 0.0) + (1 - beta1) * g * g
                m_hat = state["m"] / (1 - beta2 ** state["t"])
                v_hat = state["v"] / (1 - beta1 ** state["t"])
                return p - lr * m_hat / (np.sqrt(v_hat) + eps)
            """,
            "the step counted from 0 in the correction": [("1 - beta1 ** state[\"t\"]", "1 - beta1 ** (state[\"t\"] + 1)"),
                                                          ("1 - beta2 ** state[\"t\"]", "1 - beta2 ** (state[\"t\"] + 1)")],
            "the moments never stored": """
                t = state.get("t", 0) + 1
                state["t"] = t
                m = beta1 * state.get("m", 0.0) + (1 - beta1) * g
                v = beta2 * state.get("v", 0.0) + (1 - beta2) * g * g
                return p - lr * (m / (1 - beta1 ** t)) / (np.sqrt(v / (1 - beta2 ** t)) + eps)
            """,
            "momentum without 1 - beta1": [("beta1 * state.get(\"m\", 0.0) + (1 - beta1) * g", "beta1 * state.get(\"m\", 0.0) + g")],
            "weight decay added": [("p - lr * m_hat", "p * (1 - lr * 0.01) - lr * m_hat")],
            "the root of the mean of |g|, not of g squared": [("(1 - beta2) * g * g", "(1 - beta2) * np.abs(g)")],
        },
        "right": """
            t = state["t"] = state.get("t", 0) + 1
            m = state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g
            v = state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * g ** 2
            step = lr / (1 - beta1 ** t) * m / (np.sqrt(v / (1 - beta2 ** t)) + eps)
            return p - step
        """,
    },
    3: {  # evaluation without a graph
        "wrong": {
            "a graph recorded": [("    with no_grad():\n        logits = model(Tensor(x))", "    logits = model(Tensor(x))")],
            "detached after the forward": [("    with no_grad():\n        logits = model(Tensor(x))", "    logits = model(Tensor(x)).detach()")],
            "no_grad around the argmax only": """
                logits = model(Tensor(x))
                with no_grad():
                    return float(np.mean(logits.data.argmax(axis=1) == y))
            """,
            "argmax over the batch axis": [("argmax(axis=1) == y", "argmax(axis=0) == y")],
            "the count, not the fraction": [("np.mean(", "np.sum(")],
            "the largest logit's value compared with y": [("logits.data.argmax(axis=1) == y", "logits.data.max(axis=1) == y")],
            "integer division": [("float(np.mean(logits.data.argmax(axis=1) == y))",
                                  "int(np.sum(logits.data.argmax(axis=1) == y)) // len(y)")],
        },
        "right": """
            with no_grad():
                guesses = np.argmax(model(Tensor(x)).data, axis=-1)
            return float((guesses == y).sum() / len(y))
        """,
    },
    4: {  # a milestone, 95% within a budget
        "wrong": {
            "gradients never cleared": [("            optimiser.zero_grad()\n", "")],
            "the labels not shuffled with the inputs": [("y_fit[idx]", "y_fit[start:start + 32]")],
            "the first batch only": [("range(0, len(x_fit), 32)", "range(0, 32, 32)")],
            "the accuracy measured before the epoch": [
                ("        order = rng.permutation(len(x_fit))\n",
                 "        with no_grad():\n"
                 "            history.append(float(np.mean(model(Tensor(x_val)).data.argmax(axis=1) == y_val)))\n"
                 "        order = rng.permutation(len(x_fit))\n"),
                ("        with no_grad():\n            history.append(float(np.mean(model(Tensor(x_val)).data.argmax(axis=1) == y_val)))\n        if",
                 "        if"),
            ],
            "the accuracy on the fitting set": [("model(Tensor(x_val)).data.argmax(axis=1) == y_val", "model(Tensor(x_fit)).data.argmax(axis=1) == y_fit")],
            "a learning rate ten times too small": [("lr=0.003", "lr=0.0003")],
            "a wider network": [("    model = MLP(64, [64, 10], seed=seed)", "    model = MLP(64, [128, 10], seed=seed)")],
            "the seed ignored": [("    model = MLP(64, [64, 10], seed=seed)", "    model = MLP(64, [64, 10], seed=0)")],
            "one epoch even when none is allowed": [("    for _ in range(max_epochs):", "    for _ in range(max(max_epochs, 1)):")],
            "the whole set as one batch": [("range(0, len(x_fit), 32)", "range(0, len(x_fit), len(x_fit))"),
                                           ("order[start:start + 32]", "order[start:start + len(x_fit)]")],
        },
        "right": """
            model = MLP(64, [64, 10], seed=seed)
            optimiser = Adam(model.parameters(), lr=0.003)
            history = []
            for epoch in range(max_epochs):
                for idx in np.array_split(np.random.default_rng([seed, epoch]).permutation(len(x_fit)),
                                          -(-len(x_fit) // 32)):
                    optimiser.zero_grad()
                    cross_entropy(model(Tensor(x_fit[idx])), y_fit[idx]).backward()
                    optimiser.step()
                with no_grad():
                    guesses = model(Tensor(x_val)).data.argmax(axis=1)
                history.append(float(np.mean(guesses == y_val)))
                if history[-1] >= 0.95:
                    return model, history
            return model, history
        """,
    },
}
