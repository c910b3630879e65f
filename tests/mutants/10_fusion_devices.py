"""Wrong answers that lesson 10's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # a fused linear layer with ReLU
        # Edits of the solution's two blocks: the forward (`a = ...`, `return x.new_node(...)`) and the
        # rule (`da = ...` and three guarded accumulates).
        "wrong": {
            "built from the primitive ops": [
                ("    a = x.data @ w.data + b.data\n    return x.new_node(x.xp.maximum(a, 0.0), "
                 "parents=(x, w, b), op=\"linear_relu\",\n                      "
                 "backward_rule=linear_relu_backward)",
                 "    return (x @ w + b).relu()"),
            ],
            "the pre-activation saved for the rule": [
                ("    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=linear_relu_backward)",
                 "    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=linear_relu_backward, saved=a)"),
                ("da = out.grad * xp.astype(out.data > 0, out.dtype)", "da = out.grad * (out.saved > 0)"),
            ],
            "relu's mask saved for the rule": [
                ("    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=linear_relu_backward)",
                 "    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=linear_relu_backward, saved=a > 0)"),
                ("da = out.grad * xp.astype(out.data > 0, out.dtype)", "da = out.grad * out.saved"),
            ],
            "the pre-activation kept in a dict in saved": [
                ("    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=linear_relu_backward)",
                 "    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=linear_relu_backward, saved={\"pre\": a})"),
                ("da = out.grad * xp.astype(out.data > 0, out.dtype)", "da = out.grad * (out.saved[\"pre\"] > 0)"),
            ],
            "the pre-activation kept in the rule's closure, as micrograd keeps its values": [
                ("    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=linear_relu_backward)",
                 "    def rule(out):\n"
                 "        da = out.grad * (a > 0)\n"
                 "        x.accumulate(da @ w.data.T)\n"
                 "        w.accumulate(x.data.T @ da)\n"
                 "        b.accumulate(da.sum(axis=0))\n"
                 "    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=rule)"),
            ],
            "the pre-activation kept as a default argument of the rule": [
                ("    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=linear_relu_backward)",
                 "    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=lambda out, pre=a: linear_relu_backward(out))"),
            ],
            "the pre-activation kept by a rule that is an object": [
                ("    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=linear_relu_backward)",
                 "    class Rule:\n"
                 "        def __init__(self, pre):\n"
                 "            self.pre = pre\n"
                 "        def __call__(self, out):\n"
                 "            linear_relu_backward(out)\n"
                 "    return x.new_node(x.xp.maximum(a, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
                 "                      backward_rule=Rule(a).__call__)"),
            ],
            "the output overwritten to make the mask": [
                ("da = out.grad * xp.astype(out.data > 0, out.dtype)",
                 "mask = out.data\n    mask[mask > 0] = 1.0\n    da = out.grad * mask"),
            ],
            "gradients set, not added": [("x.accumulate(da @ w.data.T)", "x.grad = da @ w.data.T"),
                                         ("w.accumulate(x.data.T @ da)", "w.grad = x.data.T @ da"),
                                         ("b.accumulate(xp.sum(da, axis=0))", "b.grad = da.sum(axis=0)")],
            "out.grad changed in place": [("da = out.grad * xp.astype(out.data > 0, out.dtype)",
                                           "da = out.grad\n    da[out.data <= 0] = 0")],
            "no relu in backward": [("da = out.grad * xp.astype(out.data > 0, out.dtype)", "da = out.grad")],
            "the mask >= 0, true everywhere": [("da = out.grad * xp.astype(out.data > 0, out.dtype)",
                                                "da = out.grad * (out.data >= 0)")],
            "the bias's gradient not summed over the batch": [("b.accumulate(xp.sum(da, axis=0))", "b.accumulate(da)")],
            "the bias's gradient summed over the wrong axis": [
                ("b.accumulate(xp.sum(da, axis=0))", "b.accumulate(da.sum(axis=1)[:3])")],
            "w's gradient without the transpose": [("w.accumulate(x.data.T @ da)", "w.accumulate(x.data @ da.T)")],
            "the gradients returned, as a PyTorch Function's backward does": [
                ("    if x.requires_grad:\n        x.accumulate(da @ w.data.T)\n"
                 "    if w.requires_grad:\n        w.accumulate(x.data.T @ da)\n"
                 "    if b.requires_grad:\n        b.accumulate(xp.sum(da, axis=0))",
                 "    return da @ w.data.T, x.data.T @ da, da.sum(axis=0)"),
            ],
            "a Tensor in the rule, w.T for w.data.T": [("x.accumulate(da @ w.data.T)", "x.accumulate(da @ w.T)")],
            "x's gradient left out": [("    if x.requires_grad:\n        x.accumulate(da @ w.data.T)\n", "")],
            "every parent fed, needed or not": [
                ("    if x.requires_grad:\n        x.accumulate(da @ w.data.T)",
                 "    x.accumulate(da @ w.data.T)"),
            ],
            "relu forgotten in forward": [
                ("x.xp.maximum(a, 0.0)", "a"),
                ("da = out.grad * xp.astype(out.data > 0, out.dtype)", "da = out.grad"),
            ],
        },
        "right": [
            ("    a = x.data @ w.data + b.data\n    return x.new_node(x.xp.maximum(a, 0.0), "
             "parents=(x, w, b), op=\"linear_relu\",\n                      "
             "backward_rule=linear_relu_backward)",
             "    pre = x.data @ w.data + b.data\n"
             "    return Tensor(np.where(pre > 0, pre, 0.0), parents=(x, w, b), op=\"linear_relu\",\n"
             "                  backward_rule=linear_relu_backward, saved=w.data.T)"),  # a view: no new memory
            ("    da = out.grad * xp.astype(out.data > 0, out.dtype)\n",
             "    da = np.where(out.data > 0, out.grad, 0.0)\n"),
            ("x.accumulate(da @ w.data.T)", "x.accumulate(da @ out.saved)"),
            ("b.accumulate(xp.sum(da, axis=0))", "b.accumulate(np.ones(len(da)) @ da)"),
        ],
    },
    2: {  # many small ops or one large one
        "wrong": {
            "no fixed cost": """
                one_by_one = (k - 1) * 3 * n * itemsize / bandwidth
                stacked = (k * n + n) * itemsize / bandwidth
                return one_by_one, stacked
            """,
            "k ops one by one, not k - 1": """
                one_by_one = k * (fixed + 3 * n * itemsize / bandwidth)
                stacked = fixed + (k * n + n) * itemsize / bandwidth
                return one_by_one, stacked
            """,
            "an add only reads": """
                one_by_one = (k - 1) * (fixed + 2 * n * itemsize / bandwidth)
                stacked = fixed + k * n * itemsize / bandwidth
                return one_by_one, stacked
            """,
            "the stacked sum's write forgotten": """
                one_by_one = (k - 1) * (fixed + 3 * n * itemsize / bandwidth)
                stacked = fixed + k * n * itemsize / bandwidth
                return one_by_one, stacked
            """,
            "8 bytes a number, whatever the itemsize": """
                one_by_one = (k - 1) * (fixed + 3 * n * 8 / bandwidth)
                stacked = fixed + (k * n + n) * 8 / bandwidth
                return one_by_one, stacked
            """,
            "bytes times the bandwidth": """
                one_by_one = (k - 1) * (fixed + 3 * n * itemsize * bandwidth)
                stacked = fixed + (k * n + n) * itemsize * bandwidth
                return one_by_one, stacked
            """,
            "the two swapped": """
                one_by_one = (k - 1) * (fixed + 3 * n * itemsize / bandwidth)
                stacked = fixed + (k * n + n) * itemsize / bandwidth
                return stacked, one_by_one
            """,
            "a fixed cost per row of the stacked sum": """
                one_by_one = (k - 1) * (fixed + 3 * n * itemsize / bandwidth)
                stacked = k * fixed + (k * n + n) * itemsize / bandwidth
                return one_by_one, stacked
            """,
            "the bandwidth taken as GB/s": """
                one_by_one = (k - 1) * (fixed + 3 * n * itemsize / (bandwidth * 1e9))
                stacked = fixed + (k * n + n) * itemsize / (bandwidth * 1e9)
                return one_by_one, stacked
            """,
        },
        "right": """
            def op_seconds(numbers_moved):
                return fixed + numbers_moved * itemsize / bandwidth

            adds = [op_seconds(2 * n + n) for _ in range(k - 1)]
            return float(sum(adds)), op_seconds(k * n + n)
        """,
    },
    3: {  # one logsumexp for every array library
        "wrong": {
            "the naive formula": """
                xp = array_namespace(x)
                return xp.log(xp.sum(xp.exp(x), axis=axis))
            """,
            "the naive formula with NumPy's warnings silenced": """
                xp = array_namespace(x)
                with np.errstate(over="ignore", divide="ignore"):
                    return xp.log(xp.sum(xp.exp(x), axis=axis))
            """,
            "the max subtracted but not added back": """
                xp = array_namespace(x)
                m = xp.max(x, axis=axis, keepdims=True)
                return xp.log(xp.sum(xp.exp(x - m), axis=axis))
            """,
            "the max without keepdims": """
                xp = array_namespace(x)
                m = xp.max(x, axis=axis)
                return m + xp.log(xp.sum(xp.exp(x - m), axis=axis))
            """,
            "one max over the whole array": """
                xp = array_namespace(x)
                m = xp.max(x)
                return m + xp.log(xp.sum(xp.exp(x - m), axis=axis))
            """,
            "NumPy's methods": """
                m = x.max(axis=axis, keepdims=True)
                return np.squeeze(m, axis=axis) + np.log(np.exp(x - m).sum(axis=axis))
            """,
            "NumPy's functions": """
                m = np.max(x, axis=axis, keepdims=True)
                return np.squeeze(m, axis=axis) + np.log(np.sum(np.exp(x - m), axis=axis))
            """,
            "the reduced axis kept": """
                xp = array_namespace(x)
                m = xp.max(x, axis=axis, keepdims=True)
                return m + xp.log(xp.sum(xp.exp(x - m), axis=axis, keepdims=True))
            """,
            "everything in float64": """
                xp = array_namespace(x)
                x = xp.astype(x, xp.float64)
                m = xp.max(x, axis=axis, keepdims=True)
                return xp.squeeze(m, axis=axis) + xp.log(xp.sum(xp.exp(x - m), axis=axis))
            """,
            "written for 2-D arrays only": """
                xp = array_namespace(x)
                m = xp.max(x, axis=axis, keepdims=True)
                drop = m[:, 0] if axis in (1, -1) else m[0, :]
                return drop + xp.log(xp.sum(xp.exp(x - m), axis=axis))
            """,
            "through NumPy and back, which a device NumPy cannot read refuses": """
                xp = array_namespace(x)
                return xp.asarray(np.logaddexp.reduce(np.asarray(x), axis=axis))
            """,
            "the result as a NumPy array": """
                xp = array_namespace(x)
                m = xp.max(x, axis=axis, keepdims=True)
                return np.asarray(xp.squeeze(m, axis=axis) + xp.log(xp.sum(xp.exp(x - m), axis=axis)))
            """,
        },
        "right": """
            xp = array_namespace(x)
            m = xp.max(x, axis=axis)
            shifted = x - xp.expand_dims(m, axis=axis)
            return m + xp.log(xp.sum(xp.exp(shifted), axis=axis))
        """,
    },
}
