"""Wrong answers that lesson 09's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # a mini-batch iterator: the named generator's batches, global random state untouched
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
            # Every property holds (sizes, each index once, seeded, shuffled): only the exact
            # batches of the named generator tell these apart.
            "each batch sorted": [("order[start:start + batch_size] for",
                                   "np.sort(order[start:start + batch_size]) for")],
            "the batches in reverse order": [("for start in range(0, n, batch_size)]",
                                              "for start in range(0, n, batch_size)][::-1]")],
            "Python's random.Random(seed) for the order": """
                order = list(range(n))
                random.Random(seed).shuffle(order)
                order = np.array(order)
                return [order[start:start + batch_size] for start in range(0, n, batch_size)]
            """,
            "a lone last index dropped": [("range(0, n, batch_size)", "range(0, n - 1, batch_size)")],
            "the indices as floats": [("permutation(n)\n", "permutation(n).astype(float)\n")],
            "the permutation, not cut into batches": """
                return list(np.random.default_rng(seed).permutation(n))
            """,
            "another draw of the named generator": [("np.random.default_rng(seed).permutation(n)",
                                                     "np.random.default_rng(seed).choice(n, size=n, replace=False)")],
            # The right batches, but the learner's global random state is changed.
            "the global generator seeded as well": """
                np.random.seed(seed)
                order = np.random.default_rng(seed).permutation(n)
                return [order[start:start + batch_size] for start in range(0, n, batch_size)]
            """,
            "Python's random seeded as well": """
                random.seed(seed)
                order = np.random.default_rng(seed).permutation(n)
                return [order[start:start + batch_size] for start in range(0, n, batch_size)]
            """,
            "the global generator, seeded, for the order": """
                np.random.seed(seed)
                order = np.random.permutation(n)
                return [order[start:start + batch_size] for start in range(0, n, batch_size)]
            """,
        },
        "right": """
            order = np.arange(n)
            np.random.default_rng(seed).shuffle(order)
            return np.split(order, range(batch_size, n, batch_size))
        """,
    },
    2: {  # AdamW: the decay taken out of the moments
        "wrong": {
            "the decay added to the gradient (lesson 09's Adam)": """
                g = g + weight_decay * p
                state["t"] = state.get("t", 0) + 1
                state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g
                state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * g * g
                m_hat = state["m"] / (1 - beta1 ** state["t"])
                v_hat = state["v"] / (1 - beta2 ** state["t"])
                return p - lr * m_hat / (np.sqrt(v_hat) + eps)
            """,
            "the moments kept on the function, not in state": [
                ('    state["t"] = state.get("t", 0) + 1',
                 '    state = adamw_update.__dict__  # one store for every parameter\n'
                 '    state["t"] = state.get("t", 0) + 1')],
            "the decay both in the gradient and decoupled": """
                d = g + weight_decay * p
                state["t"] = state.get("t", 0) + 1
                state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * d
                state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * d * d
                m_hat = state["m"] / (1 - beta1 ** state["t"])
                v_hat = state["v"] / (1 - beta2 ** state["t"])
                return p - lr * weight_decay * p - lr * m_hat / (np.sqrt(v_hat) + eps)
            """,
            "the decay divided by sqrt(v_hat) with the step": [
                ("p - lr * weight_decay * p - lr * m_hat / (np.sqrt(v_hat) + eps)",
                 "p - lr * (m_hat + weight_decay * p) / (np.sqrt(v_hat) + eps)")],
            "the decay not scaled by lr": [("p - lr * weight_decay * p", "p - weight_decay * p")],
            "the decay of the weights after the step": [
                ("return p - lr * weight_decay * p - lr * m_hat / (np.sqrt(v_hat) + eps)",
                 "stepped = p - lr * m_hat / (np.sqrt(v_hat) + eps)\n"
                 "    return stepped - lr * weight_decay * stepped")],
            "the decay pushing away from 0": [("p - lr * weight_decay * p", "p + lr * weight_decay * p")],
            "no decay at all": [("p - lr * weight_decay * p - lr * m_hat", "p - lr * m_hat")],
            "no bias correction": [("lr * m_hat / (np.sqrt(v_hat) + eps)",
                                    "lr * state['m'] / (np.sqrt(state['v']) + eps)")],
            "eps inside the square root": [("(np.sqrt(v_hat) + eps)", "np.sqrt(v_hat + eps)")],
            "the step counted from 0 in the correction": [
                ("1 - beta1 ** state[\"t\"]", "1 - beta1 ** (state[\"t\"] + 1)"),
                ("1 - beta2 ** state[\"t\"]", "1 - beta2 ** (state[\"t\"] + 1)")],
        },
        "right": """
            t = state["t"] = state.get("t", 0) + 1
            m = state["m"] = beta1 * state.get("m", 0.0) + (1 - beta1) * g
            v = state["v"] = beta2 * state.get("v", 0.0) + (1 - beta2) * g ** 2
            shrunk = p * (1 - lr * weight_decay)  # torch.optim.AdamW's order: decay first
            return shrunk - lr / (1 - beta1 ** t) * m / (np.sqrt(v / (1 - beta2 ** t)) + eps)
        """,
    },
    3: {  # evaluation without a graph
        "wrong": {
            "a graph recorded": [("    with no_grad():\n        logits = model(Tensor(x))",
                                  "    logits = model(Tensor(x))")],
            "detached after the forward": [("    with no_grad():\n        logits = model(Tensor(x))",
                                            "    logits = model(Tensor(x)).detach()")],
            "no_grad around the argmax only": """
                logits = model(Tensor(x))
                with no_grad():
                    return float(np.mean(logits.data.argmax(axis=1) == y))
            """,
            "argmax over the batch axis": [("argmax(axis=1) == y", "argmax(axis=0) == y")],
            "the count, not the fraction": [("np.mean(", "np.sum(")],
            "the largest logit's value compared with y": [("logits.data.argmax(axis=1) == y",
                                                           "logits.data.max(axis=1) == y")],
            "the parameters' requires_grad switched off instead of no_grad": """
                for p in model.parameters():
                    p.requires_grad = False
                logits = model(Tensor(x))
                return float(np.mean(logits.data.argmax(axis=1) == y))
            """,
            "integer division": [("float(np.mean(logits.data.argmax(axis=1) == y))",
                                  "int(np.sum(logits.data.argmax(axis=1) == y)) // len(y)")],
        },
        "right": """
            with no_grad():
                guesses = np.argmax(model(Tensor(x)).data, axis=-1)
            return float((guesses == y).sum() / len(y))
        """,
    },
    4: {  # train until a milestone, against a reference run
        "wrong": {
            # Measured at the wrong moment, or counted off by one.
            "the accuracy measured before the epoch's updates": [
                ("        train_epoch(model, optimiser, rng)\n        with no_grad():\n"
                 "            accuracies.append(float(np.mean(model(Tensor(x_val)).data.argmax(axis=1) == y_val)))\n",
                 "        with no_grad():\n"
                 "            accuracies.append(float(np.mean(model(Tensor(x_val)).data.argmax(axis=1) == y_val)))\n"
                 "        train_epoch(model, optimiser, rng)\n")],
            "the milestone tested at the start of the next epoch": """
                model, optimiser, rng = new_run(seed)
                accuracies = []
                for epoch in range(1, max_epochs + 1):
                    if accuracies and accuracies[-1] >= target:
                        return epoch, accuracies
                    train_epoch(model, optimiser, rng)
                    with no_grad():
                        accuracies.append(float(np.mean(model(Tensor(x_val)).data.argmax(axis=1) == y_val)))
                return None, accuracies
            """,
            "the epoch counted from 0": [("for epoch in range(1, max_epochs + 1):", "for epoch in range(max_epochs):")],
            "one epoch too few": [("range(1, max_epochs + 1)", "range(1, max_epochs)")],
            "> where >= is meant": [(">= target", "> target")],
            "the last epoch allowed, not None, when never reached": [("return None, accuracies",
                                                                      "return max_epochs, accuracies")],
            "one more epoch trained after the milestone": [
                ("        if accuracies[-1] >= target:\n            return epoch, accuracies\n",
                 "        if len(accuracies) > 1 and accuracies[-2] >= target:\n"
                 "            return epoch - 1, accuracies\n")],
            # Measured on the wrong thing, or the run not continued.
            "the accuracy on the fitting set": [
                ("(float(np.mean(model(Tensor(x_val)).data.argmax(axis=1) == y_val)))",
                 "(float(np.mean(model(Tensor(x_fit)).data.argmax(axis=1) == y_fit)))")],
            "a new run every epoch": [("    model, optimiser, rng = new_run(seed)\n    accuracies = []\n",
                                       "    accuracies = []\n"),
                                      ("        train_epoch(model, optimiser, rng)\n",
                                       "        model, optimiser, rng = new_run(seed)\n"
                                       "        train_epoch(model, optimiser, rng)\n")],
            "the same order every epoch": [("train_epoch(model, optimiser, rng)",
                                            "train_epoch(model, optimiser, np.random.default_rng(seed))")],
            "the seed ignored": [("    model, optimiser, rng = new_run(seed)\n",
                                  "    model, optimiser, rng = new_run(0)\n")],
            "the accuracy in percent": [("float(np.mean(", "100 * float(np.mean(")],
            "every epoch trained, the list cut at the milestone": """
                model, optimiser, rng = new_run(seed)
                accuracies = []
                for _ in range(max_epochs):
                    train_epoch(model, optimiser, rng)
                    with no_grad():
                        accuracies.append(float(np.mean(model(Tensor(x_val)).data.argmax(axis=1) == y_val)))
                for epoch, reached in enumerate(accuracies, start=1):
                    if reached >= target:
                        return epoch, accuracies[:epoch]
                return None, accuracies
            """,
        },
        "right": """
            model, optimiser, rng = new_run(seed)
            accuracies = []
            while len(accuracies) < max_epochs:
                train_epoch(model, optimiser, rng)
                with no_grad():
                    guesses = np.argmax(model(Tensor(x_val)).data, axis=-1)
                accuracies.append(float((guesses == y_val).sum() / len(y_val)))
                if accuracies[-1] >= target:
                    return len(accuracies), accuracies
            return None, accuracies
        """,
    },
}
