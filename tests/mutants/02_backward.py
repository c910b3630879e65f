"""Wrong answers that lesson 02's checks must catch, and a right one they must accept."""

RECURSIVE = """
order, seen = [], set()

def visit(node):
    if id(node) in seen:
        return
    seen.add(id(node))
    for parent in node.parents:
        visit(parent)
    order.append(node)

visit(root)
return order
"""

MUTANTS = {
    1: {  # a topological sort that survives deep graphs
        "wrong": {
            "recursive": RECURSIVE,
            "recursive, raising the limit itself": "import sys\nsys.setrecursionlimit(100_000)\n" + RECURSIVE,
            "visited when pushed": [
                ("        if id(node) in visited:\n            continue\n        visited.add(id(node))\n", ""),
                ("            if id(parent) not in visited:\n                stack.append((parent, False))",
                 "            if id(parent) not in visited:\n                visited.add(id(parent))\n"
                 "                stack.append((parent, False))"),
            ],
            "pre-order, reversed": """
                order, seen, stack = [], set(), [root]
                while stack:
                    node = stack.pop()
                    if id(node) in seen:
                        continue
                    seen.add(id(node))
                    order.append(node)
                    stack.extend(node.parents)
                return order[::-1]
            """,
            "root first": [("    return order\n", "    return order[::-1]\n")],
            "no visited set": [("        if id(node) in visited:\n            continue\n", "")],
        },
        "right": """
            order, done, stack = [], set(), [root]
            while stack:
                node = stack[-1]
                pending = [p for p in node.parents if id(p) not in done]
                if pending:
                    stack.extend(pending)
                    continue
                stack.pop()
                if id(node) not in done:
                    done.add(id(node))
                    order.append(node)
            return order
        """,
    },
    2: {  # the backward loop
        "wrong": {
            "no seed": [("order[-1].grad = 1.0", "order[-1].grad = 0.0")],
            "a leaf seeded": [("order[-1].grad = 1.0", "order[0].grad = 1.0")],
            "leaves first": [("for node in reversed(order):", "for node in order:")],
            "seeded after the walk": """
                for node in reversed(order):
                    if node.backward_rule is not None:
                        node.backward_rule(node)
                order[-1].grad = 1.0
            """,
            "stopped at the first leaf": """
                order[-1].grad = 1.0
                for node in reversed(order):
                    if node.backward_rule is None:
                        break
                    node.backward_rule(node)
            """,
            "the engine's walk instead": """
                order[-1].backward()
            """,
        },
        "right": """
            root = order[-1]
            root.grad = 1.0
            for k in range(len(order) - 1, -1, -1):
                rule = order[k].backward_rule
                if rule:
                    rule(order[k])
        """,
    },
    3: {  # repair a broken accumulation
        "wrong": {
            "= for the first parent": [("a.grad += out.grad", "a.grad = out.grad")],
            "= for the second parent": [("b.grad += out.grad", "b.grad = out.grad")],
            "1 instead of out.grad": [("a.grad += out.grad", "a.grad += 1.0"), ("b.grad += out.grad", "b.grad += 1.0")],
            "the second parent forgotten": [("b.grad += out.grad", "pass")],
            "a + a counted once": [("b.grad += out.grad", "b.grad += out.grad if b is not a else 0.0")],
            "the node added, not its gradient": [("a.grad += out.grad", "a.grad += out"),
                                                 ("b.grad += out.grad", "b.grad += out")],
        },
        "right": "for parent in out.parents:\n    parent.grad += out.grad",
    },
    4: {  # local rules of your own
        "wrong": {
            "mul's slopes as out / a": [("a.grad += b.data * out.grad", "a.grad += out.data / a.data * out.grad"),
                                        ("b.grad += a.data * out.grad", "b.grad += out.data / b.data * out.grad")],
            "div's first slope as out / a": [("a.grad += out.grad / b.data", "a.grad += out.data / a.data * out.grad")],
            "= for mul's first factor": [("a.grad += b.data * out.grad", "a.grad = b.data * out.grad")],
            "the node instead of its number": [("a.grad += b.data * out.grad", "a.grad += b * out.grad")],
            "= for mul's second factor": [("b.grad += a.data * out.grad", "b.grad = a.data * out.grad")],
            "= for the divisor": [("b.grad += -a.data / b.data**2 * out.grad",
                                   "b.grad = -a.data / b.data**2 * out.grad")],
            "the divisor's sign": [("b.grad += -a.data / b.data**2 * out.grad",
                                    "b.grad += a.data / b.data**2 * out.grad")],
            "tanh applied twice": [("(1.0 - out.data**2)", "(1.0 - math.tanh(out.data)**2)")],
            "tanh without out.grad": [("a.grad += (1.0 - out.data**2) * out.grad", "a.grad += 1.0 - out.data**2")],
        },
        "right": [
            ("b.grad += -a.data / b.data**2 * out.grad", "b.grad -= out.data / b.data * out.grad"),
            ("a.grad += (1.0 - out.data**2) * out.grad", "a.grad += out.grad / math.cosh(a.data) ** 2"),
        ],
    },
}
