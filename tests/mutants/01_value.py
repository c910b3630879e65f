"""Wrong answers that lesson 01's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # multiplication on a Value of your own
        "wrong": {
            "the rule attached to self, not out": [("other.grad += self.data * out.grad\n\n        out.rule = rule",
                                                    "other.grad += self.data * out.grad\n\n        self.rule = rule")],
            "= for the first factor": [("self.grad += other.data * out.grad", "self.grad = other.data * out.grad")],
            "= for the second factor": [("other.grad += self.data * out.grad", "other.grad = self.data * out.grad")],
            "derivatives swapped": [("self.grad += other.data * out.grad", "self.grad += self.data * out.grad"),
                                    ("other.grad += self.data * out.grad", "other.grad += other.data * out.grad")],
            "out.grad left out": [("self.grad += other.data * out.grad", "self.grad += other.data"),
                                  ("other.grad += self.data * out.grad", "other.grad += self.data")],
            "parents in the wrong order": [("Num(self.data * other.data, (self, other))",
                                            "Num(self.data * other.data, (other, self))")],
            "a Value instead of a Num": "return Value(self.data) * Value(other.data)",
        },
        "right": """
            out = Num(self.data * other.data, (self, other))

            def rule():
                self.grad = self.grad + other.data * out.grad
                other.grad = other.grad + self.data * out.grad

            out.rule = rule
            return out
        """,
    },
    2: {  # a slope by central differences
        "wrong": {
            "one-sided": "return (f(x + h) - f(x)) / h",
            "the sign dropped": "return abs(f(x + h) - f(x - h)) / (2 * h)",
            "a / 2 * h": "return (f(x + h) - f(x - h)) / 2 * h",
            "an h of its own": "h = 1e-6\nreturn (f(x + h) - f(x - h)) / (2 * h)",
            "a step scaled by max(1, |x|)": ("step = h * max(1.0, abs(x))\n"
                                             "return (f(x + step) - f(x - step)) / (2 * step)"),
            "a step scaled by |x|": "step = h * abs(x) or h\nreturn (f(x + step) - f(x - step)) / (2 * step)",
            "half steps": "return (f(x + h / 2) - f(x - h / 2)) / h",
        },
        "right": "left, right = f(x - h), f(x + h)\nreturn (right - left) / (h + h)",
    },
    3: {  # how many nodes?
        "wrong": {
            "a node used twice counted twice": [('"a * a": 2', '"a * a": 3')],
            "constants not counted": [('"2 * a + 1": 5', '"2 * a + 1": 3')],
            "sum's 0 not counted": [('"sum(wi * xi for wi, xi in zip(w, x))": 9',
                                     '"sum(wi * xi for wi, xi in zip(w, x))": 8')],
            "tanh not counted": [('"(a * b).tanh()": 4', '"(a * b).tanh()": 3')],
            "a list, not a dict": "return [5, 4, 2, 5, 9, 8]",
        },
        "right": """
            expressions = ["a * b + c", "(a * b).tanh()", "a * a", "2 * a + 1",
                           "sum(wi * xi for wi, xi in zip(w, x))", "(w1 * x1 + w2 * x2).tanh()"]
            return dict(zip(expressions, [3 + 2, 2 + 2, 1 + 1, 3 + 2, 5 + 4, 4 + 4]))
        """,
    },
}
