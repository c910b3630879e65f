"""Wrong answers that lesson 03's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # one loss, three ways
        "wrong": {
            "dL/da with one term": [("[t + a * dt_du * b,", "[a * dt_du * b,")],
            "dt/du = 1 - t": [("dt_du = 1 - t * t", "dt_du = 1 - t")],
            "dL/db with its sign flipped": [("a * dt_du * a, a * dt_du]", "-a * dt_du * a, a * dt_du]")],
            "dL/dc without the outer factor a": [("a * dt_du * a, a * dt_du]", "a * dt_du * a, dt_du]")],
        },
        "right": [
            ("t = math.tanh(a * b + c)", "u = a * b + c\n    t = math.tanh(u)"),
            ("v, dtype=torch.float64, requires_grad", "v, dtype=torch.double, requires_grad"),
        ],
        "wrong with torch": {  # torch_grads is written with PyTorch: only checked where it is installed
            "torch in float32": [("v, dtype=torch.float64, requires_grad", "v, dtype=torch.float32, requires_grad")],
            "tensors where floats are asked": [("[ta.grad.item(), tb.grad.item(), tc.grad.item()]",
                                                "[ta.grad, tb.grad, tc.grad]")],
            "the loss as a tensor": [("return loss.item(), [", "return loss.detach(), [")],
        },
    },
    2: {  # predict the gradients after two backward calls
        "wrong": {
            "one backward": "return b + 2 * a, a, 1.0",
            "p accumulates too": "return 2 * (b + 2 * a), 2 * a, 2.0",
            "p reset to 0": "return 2 * (b + 2 * a), 2 * a, 0.0",
            "a's square forgotten": "return 2 * b, 2 * a, 1.0",
            "a and b swapped": "return 2 * (a + 2 * b), 2 * b, 1.0",
        },
        "right": "once = (b + 2 * a, a)\nreturn once[0] + once[0], once[1] * 2, 1",
    },
}
