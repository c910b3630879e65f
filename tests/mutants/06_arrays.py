"""Wrong answers that lesson 06's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # sum back to an operand's shape
        "wrong": {
            "only the leading axes summed": """
                return grad.sum(axis=tuple(range(grad.ndim - len(shape))))
            """,
            "stretched axes dropped, not kept as 1": """
                extra = grad.ndim - len(shape)
                grad = grad.sum(axis=tuple(range(extra)))
                stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
                return grad.sum(axis=stretched)
            """,
            "the copies averaged": """
                extra = grad.ndim - len(shape)
                grad = grad.mean(axis=tuple(range(extra)))
                stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
                return grad.mean(axis=stretched, keepdims=True)
            """,
            "the gradient handed on unchanged": """
                return grad
            """,
            "the trailing axes summed": """
                grad = grad.sum(axis=tuple(range(len(shape), grad.ndim)))
                stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
                return grad.sum(axis=stretched, keepdims=True)
            """,
        },
        "right": """
            while grad.ndim > len(shape):
                grad = grad.sum(axis=0)
            for axis, size in enumerate(shape):
                if size == 1:
                    grad = grad.sum(axis=axis, keepdims=True)
            return grad
        """,
    },
    2: {  # a broadcasting multiply's backward
        "wrong": {
            "no sum_to_shape": """
                a, b = out.parents
                if a.requires_grad:
                    accumulate(a, out.grad * b.data)
                if b.requires_grad:
                    accumulate(b, out.grad * a.data)
            """,
            "each parent times itself": """
                a, b = out.parents
                if a.requires_grad:
                    accumulate(a, sum_to_shape(out.grad * a.data, a.shape))
                if b.requires_grad:
                    accumulate(b, sum_to_shape(out.grad * b.data, b.shape))
            """,
            "grad overwritten, not added": """
                a, b = out.parents
                if a.requires_grad:
                    a.grad = sum_to_shape(out.grad * b.data, a.shape)
                if b.requires_grad:
                    b.grad = sum_to_shape(out.grad * a.data, b.shape)
            """,
            "a constant given a gradient": """
                a, b = out.parents
                accumulate(a, sum_to_shape(out.grad * b.data, a.shape))
                accumulate(b, sum_to_shape(out.grad * a.data, b.shape))
            """,
            "out.grad forgotten": """
                a, b = out.parents
                if a.requires_grad:
                    accumulate(a, sum_to_shape(np.broadcast_to(b.data, out.shape), a.shape))
                if b.requires_grad:
                    accumulate(b, sum_to_shape(np.broadcast_to(a.data, out.shape), b.shape))
            """,
        },
        "right": """
            a, b = out.parents
            for mine, other in ((a, b), (b, a)):
                if mine.requires_grad:
                    local = np.broadcast_to(other.data, out.shape) * out.grad
                    accumulate(mine, sum_to_shape(local, mine.shape))
        """,
    },
    3: {  # matmul's backward
        "wrong": {
            "batch axes never summed": """
                return dC @ np.swapaxes(B, -1, -2), np.swapaxes(A, -1, -2) @ dC
            """,
            ".T on a batch": """
                return sum_to_shape(dC @ B.T, A.shape), sum_to_shape(A.T @ dC, B.shape)
            """,
            "the batch averaged": """
                dA = dC @ np.swapaxes(B, -1, -2)
                dB = np.swapaxes(A, -1, -2) @ dC
                while dB.ndim > B.ndim:
                    dB = dB.mean(axis=0)
                while dA.ndim > A.ndim:
                    dA = dA.mean(axis=0)
                return dA, dB
            """,
            "no transposes": """
                return sum_to_shape(dC @ B, A.shape), sum_to_shape(A @ dC, B.shape)
            """,
            "the factors in the wrong order": """
                dA = np.swapaxes(B, -1, -2) @ dC
                dB = dC @ np.swapaxes(A, -1, -2)
                return dA, dB
            """,
        },
        "right": """
            dA = np.einsum("...ij,...kj->...ik", dC, B)
            dB = np.einsum("...ji,...jk->...ik", A, dC)
            return sum_to_shape(dA, A.shape), sum_to_shape(dB, B.shape)
        """,
    },
    4: {  # predict the gradient shapes
        "wrong": {
            "err without the broadcast": """
                return {"W": (2, 3), "b": (3,), "v": (3, 1), "xw": (5, 3), "h": (5, 3), "out": (5, 1),
                        "err": (5, 1)}
            """,
            "b's at the shape of xw + b": """
                return {"W": (2, 3), "b": (5, 3), "v": (3, 1), "xw": (5, 3), "h": (5, 3), "out": (5, 1),
                        "err": (5, 5)}
            """,
            "out's at err's shape": """
                return {"W": (2, 3), "b": (3,), "v": (3, 1), "xw": (5, 3), "h": (5, 3), "out": (5, 5),
                        "err": (5, 5)}
            """,
            "xw at X's shape": """
                return {"W": (2, 3), "b": (3,), "v": (3, 1), "xw": (5, 2), "h": (5, 3), "out": (5, 1),
                        "err": (5, 5)}
            """,
            "out a vector of 5": """
                return {"W": (2, 3), "b": (3,), "v": (3, 1), "xw": (5, 3), "h": (5, 3), "out": (5,),
                        "err": (5,)}
            """,
        },
        "right": """
            out = (5, 1)
            return {"W": [2, 3], "b": (3,), "v": (3, 1), "xw": (5, 3), "h": (5, 3), "out": out,
                    "err": np.broadcast_shapes(out, (5,))}
        """,
    },
    5: {  # a linear layer for a batch
        "wrong": {
            "db not summed": """
                rows, drows = x.reshape(-1, W.shape[0]), dy.reshape(-1, W.shape[1])
                return x @ W + b, dy @ W.T, rows.T @ drows, dy
            """,
            "db summed to one number": """
                rows, drows = x.reshape(-1, W.shape[0]), dy.reshape(-1, W.shape[1])
                return x @ W + b, dy @ W.T, rows.T @ drows, dy.sum()
            """,
            "x.T with two batch axes": """
                return x @ W + b, dy @ W.T, x.T @ dy, dy.reshape(-1, W.shape[1]).sum(axis=0)
            """,
            "db averaged": """
                rows, drows = x.reshape(-1, W.shape[0]), dy.reshape(-1, W.shape[1])
                return x @ W + b, dy @ W.T, rows.T @ drows, drows.mean(axis=0)
            """,
            "dW per batch entry": """
                dW = np.swapaxes(x, -1, -2) @ dy
                return x @ W + b, dy @ W.T, dW, dy.reshape(-1, W.shape[1]).sum(axis=0)
            """,
        },
        "right": """
            y = np.einsum("...i,ij->...j", x, W) + b
            dx = np.einsum("...j,ij->...i", dy, W)
            batch = list(range(x.ndim - 1))
            dW = np.tensordot(x, dy, axes=(batch, batch))
            db = dy.reshape(-1, dy.shape[-1]).sum(axis=0)
            return y, dx, dW, db
        """,
    },
}
