"""Wrong answers that lesson 06's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # a broadcasting division's backward
        "wrong": {
            "no sum_to_shape": """
                a, b = out.parents
                if a.requires_grad:
                    a.accumulate(out.grad / b.data)
                if b.requires_grad:
                    b.accumulate(-out.grad * a.data / b.data ** 2)
            """,
            "b squared with NumPy, the Tensor rather than its array": [
                ("b.data ** 2, b.shape", "np.square(b), b.shape")],
            "the multiply's rule": """
                a, b = out.parents
                if a.requires_grad:
                    a.accumulate(sum_to_shape(out.grad * b.data, a.shape))
                if b.requires_grad:
                    b.accumulate(sum_to_shape(out.grad * a.data, b.shape))
            """,
            "b's slope without its minus sign": """
                a, b = out.parents
                if a.requires_grad:
                    a.accumulate(sum_to_shape(out.grad / b.data, a.shape))
                if b.requires_grad:
                    b.accumulate(sum_to_shape(out.grad * a.data / b.data ** 2, b.shape))
            """,
            "b's slope as -1 / b**2, without a": """
                a, b = out.parents
                if a.requires_grad:
                    a.accumulate(sum_to_shape(out.grad / b.data, a.shape))
                if b.requires_grad:
                    b.accumulate(sum_to_shape(-out.grad / b.data ** 2, b.shape))
            """,
            "b's slope as -a / b, one power short": """
                a, b = out.parents
                if a.requires_grad:
                    a.accumulate(sum_to_shape(out.grad / b.data, a.shape))
                if b.requires_grad:
                    b.accumulate(sum_to_shape(-out.grad * a.data / b.data, b.shape))
            """,
            "grad overwritten, not added": """
                a, b = out.parents
                if a.requires_grad:
                    a.grad = sum_to_shape(out.grad / b.data, a.shape)
                if b.requires_grad:
                    b.grad = sum_to_shape(-out.grad * a.data / b.data ** 2, b.shape)
            """,
            "a constant given a gradient": """
                a, b = out.parents
                a.accumulate(sum_to_shape(out.grad / b.data, a.shape))
                b.accumulate(sum_to_shape(-out.grad * a.data / b.data ** 2, b.shape))
            """,
            "out.grad forgotten": """
                a, b = out.parents
                if a.requires_grad:
                    a.accumulate(sum_to_shape(np.broadcast_to(1 / b.data, out.shape), a.shape))
                if b.requires_grad:
                    b.accumulate(sum_to_shape(-out.data / b.data, b.shape))
            """,
        },
        "right": """
            a, b = out.parents
            over_b = out.grad / b.data
            for parent, local in ((a, over_b), (b, -over_b * out.data)):  # out.data is a / b
                if parent.requires_grad:
                    parent.accumulate(sum_to_shape(local, parent.shape))
        """,
    },
    2: {  # matmul's backward
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
    3: {  # a mean's backward over any axes
        "wrong": {
            "axes put back one at a time, sorted, negative ones as given": """
                axes = tuple(range(len(shape))) if axis is None else tuple(sorted(np.atleast_1d(axis).tolist()))
                n = int(np.prod([shape[a] for a in axes]))
                if not keepdims:
                    for a in axes:
                        grad = np.expand_dims(grad, a)
                return np.broadcast_to(grad, shape) / n
            """,
            "the axes put back one at a time, in the order given": [
                ("        grad = np.expand_dims(grad, axis)",
                 "        for a in axis:\n            grad = np.expand_dims(grad, a)")],
            "the sum's gradient: no 1 / n": """
                axes = tuple(range(len(shape))) if axis is None else np.atleast_1d(axis) % len(shape)
                if not keepdims:
                    grad = np.expand_dims(grad, tuple(axes))
                return np.broadcast_to(grad, shape).copy()
            """,
            "divided by the size of x": """
                axes = tuple(range(len(shape))) if axis is None else tuple(np.atleast_1d(axis) % len(shape))
                if not keepdims:
                    grad = np.expand_dims(grad, axes)
                return np.broadcast_to(grad, shape) / np.prod(shape)
            """,
            "divided by the number of averaged axes": """
                axes = tuple(range(len(shape))) if axis is None else tuple(np.atleast_1d(axis) % len(shape))
                if not keepdims:
                    grad = np.expand_dims(grad, axes)
                return np.broadcast_to(grad, shape) / len(axes)
            """,
            "the axes never put back": """
                axes = tuple(range(len(shape))) if axis is None else tuple(np.atleast_1d(axis) % len(shape))
                n = np.prod([shape[a] for a in axes])
                return np.broadcast_to(grad, shape) / n
            """,
            "the axes put back at the end": """
                axes = tuple(range(len(shape))) if axis is None else tuple(np.atleast_1d(axis) % len(shape))
                n = np.prod([shape[a] for a in axes])
                if not keepdims:
                    grad = grad.reshape(grad.shape + (1,) * len(axes))
                return np.broadcast_to(grad, shape) / n
            """,
            "keepdims ignored": """
                axes = tuple(range(len(shape))) if axis is None else tuple(np.atleast_1d(axis) % len(shape))
                n = np.prod([shape[a] for a in axes])
                return np.broadcast_to(np.expand_dims(grad, axes), shape) / n
            """,
            "negative axes taken as they are": """
                axes = range(len(shape)) if axis is None else np.atleast_1d(axis)
                kept = tuple(1 if i in axes else size for i, size in enumerate(shape))
                n = np.prod([shape[a] for a in axes])
                return np.broadcast_to(grad.reshape(kept), shape) / n
            """,
        },
        "right": """
            ndim = len(shape)
            axes = range(ndim) if axis is None else [a % ndim for a in np.atleast_1d(axis)]
            kept = tuple(1 if i in axes else size for i, size in enumerate(shape))
            n = int(np.prod(shape)) // int(np.prod(kept))
            return np.broadcast_to(np.reshape(grad, kept), shape) / n
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
            "at most two batch axes": """
                y = x @ W + b
                dx = dy @ W.T
                dW = np.swapaxes(x, -1, -2) @ dy
                if dW.ndim == 3:
                    dW = dW.sum(axis=0)
                db = dy.sum(axis=(0, 1)) if dy.ndim == 3 else dy.sum(axis=0)
                return y, dx, dW, db
            """,
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
