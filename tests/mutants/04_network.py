"""Wrong answers that lesson 04's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # a neuron
        "wrong": {
            "the inputs' numbers, not the inputs": [("act = act + wi * xi",
                                                     "act = act + wi * getattr(xi, 'data', xi)")],
            "the bias appended to the weights": [("return self.w + [self.b]",
                                                  "self.w.append(self.b)\n        return self.w")],
            "copies as parameters": [("return self.w + [self.b]",
                                      "return [Value(w.data) for w in self.w] + [Value(self.b.data)]")],
            "the bias first": [("return self.w + [self.b]", "return [self.b] + self.w")],
            "tanh even when nonlin is False": [("return act.tanh() if self.nonlin else act", "return act.tanh()")],
            "NumPy's tanh": [("return act.tanh() if self.nonlin else act",
                              "return np.tanh(act) if self.nonlin else act")],
            "the bias forgotten": [("act = self.b", "act = Value(0.0)")],
            "weights from .data": [("act = act + wi * xi", "act = act + Value(wi.data) * xi")],
        },
        "right": [
            ("act = self.b\n        for wi, xi in zip(self.w, x):\n            act = act + wi * xi",
             "act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)"),
            ("return self.w + [self.b]", "return [*self.w, self.b]"),
        ],
    },
    2: {  # the training loop
        "wrong": {
            "XOR's points, not the ones given": [("loss = mse([model(x)[0] for x in xs], ys)",
                                                  "loss = mse([model(x)[0] for x in XOR_X], XOR_Y)")],
            "a learning rate of its own": [("p.data -= lr * p.grad", "p.data -= 0.2 * p.grad")],
            "a number of steps of its own": [("for _ in range(steps):", "for _ in range(100):")],
            "gradients never cleared": [("            p.grad = 0.0\n", "            pass\n")],
            "gradient ascent": [("p.data -= lr * p.grad", "p.data += lr * p.grad")],
            "one point per step": [("loss = mse([model(x)[0] for x in xs], ys)",
                                    "loss = mse([model(xs[0])[0]], ys[:1])")],
            "losses as Values": [("losses.append(loss.data)", "losses.append(loss)")],
            "a step too small": [("p.data -= lr * p.grad", "p.data -= lr / len(xs) * p.grad")],
        },
        "right": """
            opt = SGD(model.parameters(), lr=lr)
            losses = []
            for _ in range(steps):
                opt.zero_grad()
                loss = mse([model(x)[0] for x in xs], ys)
                loss.backward()
                opt.step()
                losses.append(loss.data)
            return losses
        """,
    },
    3: {  # find and fix the bug
        "wrong": {
            "total never reset between passes": [("        total = 0.0\n        for x, y", "        for x, y"),
                                                 ("    means = []\n", "    means = []\n    total = 0.0\n")],
            "the bug kept": [("            opt.zero_grad()\n", "")],
            "cleared before the step": [("opt.step()\n            opt.zero_grad()",
                                         "opt.zero_grad()\n            opt.step()")],
            "cleared once per pass": [("            opt.zero_grad()\n", ""),
                                      ("        total = 0.0\n",
                                       "        total = 0.0\n        opt.zero_grad()\n")],
            "the sum, not the mean": [("means.append(total / len(xs))", "means.append(total)")],
            "a fresh optimiser's rate": [("SGD(model.parameters(), lr=lr)",
                                          "SGD(model.parameters(), lr=lr / len(xs))")],
            "the loss Value summed, not its .data": [("total += loss.data", "total += loss")],
        },
        "right": [("            opt.zero_grad()\n",
                   "            for p in model.parameters():\n                p.grad = 0.0\n")],
    },
    4: {  # XOR to 100% in 50 steps
        "wrong": {
            "too many steps": 'return {"hidden": [8], "lr": 0.1, "momentum": 0.9, "steps": 60}',
            "no momentum": 'return {"hidden": [4], "lr": 0.2, "momentum": 0.0, "steps": 50}',
            "a step that overshoots": 'return {"hidden": [8], "lr": 1.0, "momentum": 0.9, "steps": 50}',
            "momentum 1": 'return {"hidden": [8], "lr": 0.1, "momentum": 1.0, "steps": 50}',
            "hidden as a number": 'return {"hidden": 8, "lr": 0.1, "momentum": 0.9, "steps": 50}',
            "lr as a string": 'return {"hidden": [8], "lr": "0.1", "momentum": 0.9, "steps": 50}',
            "momentum None": 'return {"hidden": [8], "lr": 0.1, "momentum": None, "steps": 50}',
            "a layer size True": 'return {"hidden": [True, 8], "lr": 0.1, "momentum": 0.9, "steps": 50}',
            "lr True": 'return {"hidden": [8], "lr": True, "momentum": 0.9, "steps": 50}',
        },
        "right": 'return {"hidden": [16], "lr": 0.1, "momentum": 0.9, "steps": 50}',
    },
}
