"""Wrong answers that lesson 07's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # a stable log-sum-exp
        "wrong": {
            "x shifted in place": """
                m = np.max(x, axis=axis, keepdims=True)
                x -= m
                return np.squeeze(m + np.log(np.sum(np.exp(x), axis=axis, keepdims=True)), axis=axis)
            """,
            "-inf taken as 0 for the maximum": """
                m = np.max(np.where(np.isfinite(x), x, 0.0), axis=axis, keepdims=True)
                return np.squeeze(m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)), axis=axis)
            """,
            "the naive formula": """
                return np.log(np.sum(np.exp(x), axis=axis))
            """,
            "the axis kept": """
                m = np.max(x, axis=axis, keepdims=True)
                return m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True))
            """,
            "keepdims forgotten (x - m does not broadcast along a later axis)": """
                m = np.max(x, axis=axis)
                return m + np.log(np.sum(np.exp(x - m), axis=axis))
            """,
            "one maximum for the whole array": """
                m = np.max(x)
                return m + np.log(np.sum(np.exp(x - m), axis=axis))
            """,
            "np.squeeze without its axis (a size-1 axis of x goes too)": [
                ("return np.squeeze(m + np.log(total), axis=axis)", "return np.squeeze(m + np.log(total))")],
            "the maximum never added back": """
                m = np.max(x, axis=axis, keepdims=True)
                return np.log(np.sum(np.exp(x - m), axis=axis))
            """,
            "the maximum of the absolute values": """
                m = np.max(np.abs(np.where(np.isinf(x), 0, x)), axis=axis, keepdims=True)
                return np.squeeze(m + np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)), axis)
            """,
        },
        "right": """
            m = np.max(x, axis=axis)
            shifted = np.exp(x - np.expand_dims(m, axis))
            return m + np.log(shifted.sum(axis=axis))
        """,
    },
    2: {  # cross-entropy and its gradient
        "wrong": {
            "the logits shifted in place": [("    m = logits.max(axis=1, keepdims=True)\n    e = np.exp(logits - m)\n",
                                             "    m = logits.max(axis=1, keepdims=True)\n    logits -= m\n"
                                             "    m = 0.0\n    e = np.exp(logits)\n")],
            "the gradient first, then the loss": [("return float(loss), grad / batch",
                                                   "return grad / batch, float(loss)")],
            "log of the softmax": """
                batch = logits.shape[0]
                e = np.exp(logits - logits.max(axis=1, keepdims=True))
                p = e / e.sum(axis=1, keepdims=True)
                rows = np.arange(batch)
                grad = p.copy()
                grad[rows, labels] -= 1
                return float(-np.log(p[rows, labels]).mean()), grad / batch
            """,
            "no shift": """
                batch = logits.shape[0]
                e = np.exp(logits)
                s = e.sum(axis=1, keepdims=True)
                rows = np.arange(batch)
                grad = e / s
                grad[rows, labels] -= 1
                return float(np.mean(np.log(s[:, 0]) - logits[rows, labels])), grad / batch
            """,
            "the gradient of the sum": [("return float(loss), grad / batch", "return float(loss), grad")],
            "the one-hot sign flipped": [("grad[rows, labels] -= 1", "grad[rows, labels] += 1")],
            "the loss summed": [("loss = -log_probs[rows, labels].sum() / batch",
                                 "loss = -log_probs[rows, labels].sum()")],
        },
        "right": """
            batch = len(labels)
            lse = np.logaddexp.reduce(logits, axis=1)
            rows = np.arange(batch)
            grad = np.exp(logits - lse[:, None])
            grad[rows, labels] -= 1
            return float(np.mean(lse - logits[rows, labels])), grad / batch
        """,
    },
    3: {  # a stable sigmoid
        "wrong": {
            "the result written into x": """
                z = np.exp(-np.abs(x))
                x[...] = np.where(x >= 0, 1, z) / (1 + z)
                return x
            """,
            "exp(x) as the value below -30": """
                z = np.exp(-np.abs(x))
                return np.where(x >= 0, 1 / (1 + z), np.where(x < -30, z, z / (1 + z)))
            """,
            "exp(-x) overflows": """
                return 1 / (1 + np.exp(-x))
            """,
            "exp(x) overflows": """
                return np.exp(x) / (1 + np.exp(x))
            """,
            "the overflow's warning silenced": """
                with np.errstate(all="ignore"):
                    return 1 / (1 + np.exp(-x))
            """,
            "np.where of two unstable branches": """
                return np.where(x >= 0, 1 / (1 + np.exp(-x)), np.exp(x) / (1 + np.exp(x)))
            """,
            "x clipped": """
                return 1 / (1 + np.exp(-np.clip(x, -30, 30)))
            """,
            "1 - 1 / (1 + z) for x < 0": """
                z = np.exp(-np.abs(x))
                return np.where(x >= 0, 1 / (1 + z), 1 - 1 / (1 + z))
            """,
            "the tanh identity": """
                return 0.5 * (1 + np.tanh(x / 2))
            """,
            "float64 whatever the input": """
                x = np.asarray(x, dtype=np.float64)
                z = np.exp(-np.abs(x))
                return np.where(x >= 0, 1 / (1 + z), z / (1 + z))
            """,
        },
        "right": """
            return np.exp(-np.logaddexp(0, -x))
        """,
    },
    4: {  # the finite-difference step
        "wrong": {
            "gradcheck's default 1e-6": """
                return 1e-6
            """,
            "the forward difference's sqrt(machine_eps)": """
                return machine_eps ** 0.5
            """,
            "machine_eps itself": """
                return machine_eps
            """,
            "a fixed 1e-2": """
                return 1e-2
            """,
            "machine_eps ** (1 / 4)": """
                return machine_eps ** 0.25
            """,
            "a tenth of machine_eps ** (1 / 3)": """
                return 0.1 * machine_eps ** (1 / 3)
            """,
        },
        "right": """
            return (3 * machine_eps) ** (1 / 3)
        """,
    },
}
