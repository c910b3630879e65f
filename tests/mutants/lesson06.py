"""Plausible answers to lesson 06's exercises: each wrong one must fail its check, each right one pass.

tests/test_mutants_lesson06.py runs every entry against the check cell of
solutions/06_arrays.ipynb.
"""

MUTANTS = {
    "my_sum_to_shape": {
        "wrong": [
            # Sums only the axes added in front; a stretched size-1 axis stays stretched.
            '''def my_sum_to_shape(grad, shape):
    return grad.sum(axis=tuple(range(grad.ndim - len(shape))))
''',
            # Sums the stretched axes but drops them instead of keeping them as size 1.
            '''def my_sum_to_shape(grad, shape):
    extra = grad.ndim - len(shape)
    grad = grad.sum(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched)
''',
            # Averages the copies instead of adding their gradients.
            '''def my_sum_to_shape(grad, shape):
    extra = grad.ndim - len(shape)
    grad = grad.mean(axis=tuple(range(extra)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.mean(axis=stretched, keepdims=True)
''',
            # Hands the gradient on unchanged.
            '''def my_sum_to_shape(grad, shape):
    return grad
''',
            # Sums the trailing axes instead of the leading ones.
            '''def my_sum_to_shape(grad, shape):
    grad = grad.sum(axis=tuple(range(len(shape), grad.ndim)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True)
''',
        ],
        "right": [
            '''def my_sum_to_shape(grad, shape):
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad
''',
        ],
    },
    "mul_rule": {
        "wrong": [
            # No sum_to_shape: the output's shape reaches a smaller parent.
            '''def mul_rule(out):
    a, b = out.parents
    if a.requires_grad:
        accumulate(a, out.grad * b.data)
    if b.requires_grad:
        accumulate(b, out.grad * a.data)
''',
            # Each parent multiplied by itself instead of by the other operand.
            '''def mul_rule(out):
    a, b = out.parents
    if a.requires_grad:
        accumulate(a, sum_to_shape(out.grad * a.data, a.shape))
    if b.requires_grad:
        accumulate(b, sum_to_shape(out.grad * b.data, b.shape))
''',
            # Overwrites grad instead of adding: x * x loses one of its two uses.
            '''def mul_rule(out):
    a, b = out.parents
    if a.requires_grad:
        a.grad = sum_to_shape(out.grad * b.data, a.shape)
    if b.requires_grad:
        b.grad = sum_to_shape(out.grad * a.data, b.shape)
''',
            # Gives a constant a gradient too.
            '''def mul_rule(out):
    a, b = out.parents
    accumulate(a, sum_to_shape(out.grad * b.data, a.shape))
    accumulate(b, sum_to_shape(out.grad * a.data, b.shape))
''',
            # Forgets the chain rule's out.grad.
            '''def mul_rule(out):
    a, b = out.parents
    if a.requires_grad:
        accumulate(a, sum_to_shape(np.broadcast_to(b.data, out.shape), a.shape))
    if b.requires_grad:
        accumulate(b, sum_to_shape(np.broadcast_to(a.data, out.shape), b.shape))
''',
        ],
        "right": [
            '''def mul_rule(out):
    a, b = out.parents
    for mine, other in ((a, b), (b, a)):
        if mine.requires_grad:
            local = np.broadcast_to(other.data, out.shape) * out.grad
            accumulate(mine, sum_to_shape(local, mine.shape))
''',
        ],
    },
    "matmul_grads": {
        "wrong": [
            # Right products, never summed over the broadcast batch axes.
            '''def matmul_grads(A, B, dC):
    return dC @ np.swapaxes(B, -1, -2), np.swapaxes(A, -1, -2) @ dC
''',
            # .T reverses every axis of a batch, not just the last two.
            '''def matmul_grads(A, B, dC):
    return sum_to_shape(dC @ B.T, A.shape), sum_to_shape(A.T @ dC, B.shape)
''',
            # Averages over the batch instead of summing.
            '''def matmul_grads(A, B, dC):
    dA = dC @ np.swapaxes(B, -1, -2)
    dB = np.swapaxes(A, -1, -2) @ dC
    while dB.ndim > B.ndim:
        dB = dB.mean(axis=0)
    while dA.ndim > A.ndim:
        dA = dA.mean(axis=0)
    return dA, dB
''',
            # No transposes.
            '''def matmul_grads(A, B, dC):
    return sum_to_shape(dC @ B, A.shape), sum_to_shape(A @ dC, B.shape)
''',
            # The factors in the wrong order.
            '''def matmul_grads(A, B, dC):
    dA = np.swapaxes(B, -1, -2) @ dC
    dB = dC @ np.swapaxes(A, -1, -2)
    return dA, dB
''',
        ],
        "right": [
            '''def matmul_grads(A, B, dC):
    dA = np.einsum("...ij,...kj->...ik", dC, B)
    dB = np.einsum("...ji,...jk->...ik", A, dC)
    return sum_to_shape(dA, A.shape), sum_to_shape(dB, B.shape)
''',
        ],
    },
    "predicted_grad_shapes": {
        "wrong": [
            # err taken to have out's shape: the broadcast in out - y missed.
            '''def predicted_grad_shapes():
    return {"W": (2, 3), "b": (3,), "v": (3, 1), "xw": (5, 3), "h": (5, 3), "out": (5, 1),
            "err": (5, 1)}
''',
            # The bias's gradient left at the shape of xw + b.
            '''def predicted_grad_shapes():
    return {"W": (2, 3), "b": (5, 3), "v": (3, 1), "xw": (5, 3), "h": (5, 3), "out": (5, 1),
            "err": (5, 5)}
''',
            # out's gradient left at err's shape.
            '''def predicted_grad_shapes():
    return {"W": (2, 3), "b": (3,), "v": (3, 1), "xw": (5, 3), "h": (5, 3), "out": (5, 5),
            "err": (5, 5)}
''',
            # X @ W taken to have X's shape.
            '''def predicted_grad_shapes():
    return {"W": (2, 3), "b": (3,), "v": (3, 1), "xw": (5, 2), "h": (5, 3), "out": (5, 1),
            "err": (5, 5)}
''',
            # out taken to be a vector of 5.
            '''def predicted_grad_shapes():
    return {"W": (2, 3), "b": (3,), "v": (3, 1), "xw": (5, 3), "h": (5, 3), "out": (5,),
            "err": (5,)}
''',
        ],
        "right": [
            '''def predicted_grad_shapes():
    out = (5, 1)
    return {"W": [2, 3], "b": (3,), "v": (3, 1), "xw": (5, 3), "h": (5, 3), "out": out,
            "err": np.broadcast_shapes(out, (5,))}
''',
        ],
    },
    "linear_forward_backward": {
        "wrong": [
            # db not summed over the batch.
            '''def linear_forward_backward(x, W, b, dy):
    rows, drows = x.reshape(-1, W.shape[0]), dy.reshape(-1, W.shape[1])
    return x @ W + b, dy @ W.T, rows.T @ drows, dy
''',
            # db summed over everything, to one number.
            '''def linear_forward_backward(x, W, b, dy):
    rows, drows = x.reshape(-1, W.shape[0]), dy.reshape(-1, W.shape[1])
    return x @ W + b, dy @ W.T, rows.T @ drows, dy.sum()
''',
            # x.T reverses every axis: wrong once there are two batch axes.
            '''def linear_forward_backward(x, W, b, dy):
    return x @ W + b, dy @ W.T, x.T @ dy, dy.reshape(-1, W.shape[1]).sum(axis=0)
''',
            # db averaged instead of summed.
            '''def linear_forward_backward(x, W, b, dy):
    rows, drows = x.reshape(-1, W.shape[0]), dy.reshape(-1, W.shape[1])
    return x @ W + b, dy @ W.T, rows.T @ drows, drows.mean(axis=0)
''',
            # dW per batch entry, never summed over the first batch axis.
            '''def linear_forward_backward(x, W, b, dy):
    dW = np.swapaxes(x, -1, -2) @ dy
    return x @ W + b, dy @ W.T, dW, dy.reshape(-1, W.shape[1]).sum(axis=0)
''',
        ],
        "right": [
            '''def linear_forward_backward(x, W, b, dy):
    y = np.einsum("...i,ij->...j", x, W) + b
    dx = np.einsum("...j,ij->...i", dy, W)
    batch = list(range(x.ndim - 1))
    dW = np.tensordot(x, dy, axes=(batch, batch))
    db = dy.reshape(-1, dy.shape[-1]).sum(axis=0)
    return y, dx, dW, db
''',
        ],
    },
}
