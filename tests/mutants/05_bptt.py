"""Wrong answers that lesson 05's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # unroll the cell
        "wrong": {
            "h0 ignored, zeros of its own": [("    h = h0\n", "    h = [Value(0.0) for _ in range(cell.nhidden)]\n")],
            "h0 detached": [("    h = h0\n", "    h = [v.detach() for v in h0]\n")],
            "h0 at every step": [("h = cell(x, h)", "h = cell(x, h0)")],
            "detached between steps": [("h = cell(x, h)", "h = cell(x, [v.detach() for v in h])")],
            "new Values from .data": [("h = cell(x, h)", "h = cell(x, [Value(v.data) for v in h])")],
            "the last state only": [("return states", "return states[-1]")],
            "the state before the step": [("        h = cell(x, h)\n        states.append(h)",
                                           "        states.append(h)\n        h = cell(x, h)")],
            "the first input skipped": [("for x in xs:", "for x in xs[1:] + xs[:1]:")],
        },
        "right": "states = [cell(xs[0], h0)]\nfor x in xs[1:]:\n    states.append(cell(x, states[-1]))\nreturn states",
    },
    2: {  # how many nodes does the unrolled graph have?
        "wrong": {
            "total() forgotten": [(" + (nhidden - 1)", "")],
            "h0 forgotten": [("return parameters + nhidden + T", "return parameters + T")],
            "inputs forgotten": [("per_step = nin + nhidden", "per_step = nhidden")],
            "a float": [("return parameters", "return 1.0 * parameters")],
            "one node short per unit": [("2 * nin + 2 * nhidden + 1", "2 * nin + 2 * nhidden")],
        },
        "right": ("return (nhidden * (nin + nhidden + 1) + nhidden + T * nin\n"
                  "        + T * nhidden * (2 * nin + 2 * nhidden + 1) + nhidden - 1)"),
    },
    3: {  # truncated BPTT
        "wrong": {
            "a cut before step 0 too": [("if t > 0 and t % k == 0:", "if t % k == 0:")],
            "never cut": [("if t > 0 and t % k == 0:", "if False:")],
            "cut at every step": [("if t > 0 and t % k == 0:", "if t > 0:")],
            "cut one step late": [("if t > 0 and t % k == 0:", "if t > 0 and (t - 1) % k == 0 and t > 1:")],
            "the returned states detached": [("        h = cell(x, h)\n        states.append(h)",
                                              "        h = cell(x, h)\n        if (t + 1) % k == 0:\n"
                                              "            h = [v.detach() for v in h]\n        states.append(h)")],
            "the states before a cut returned as detached copies": [
                ("        states.append(h)",
                 "        states.append([v.detach() for v in h] if (t + 1) % k == 0 else h)")],
            "every k-th state frozen": [("            h = [v.detach() for v in h]",
                                         "            h = [v.detach() for v in h0]")],
            "one Value a step, not the state": [("        states.append(h)", "        states.append(h[0])")],
        },
        "right": [("h = [v.detach() for v in h]", "h = [Value(v.data) for v in h]")],
    },
    4: {  # check a BPTT gradient with a central difference
        "wrong": {
            "one-sided": ("saved = w.data\nbase = f()\nw.data = saved + eps\nup = f()\n"
                          "w.data = saved\nreturn (up - base) / eps"),
            "w.data not put back": [("    w.data = saved\n    return", "    return")],
            "divided by eps": [("/ (2 * eps)", "/ eps")],
            "the second nudge from the first": [("w.data = saved - eps", "w.data = w.data - eps")],
            "f not called again": ("saved = w.data\nw.data = saved + eps\nup = f()\ndown = up\n"
                                   "w.data = saved\nreturn (up - down) / (2 * eps)"),
        },
        "right": """
            saved = w.data
            try:
                w.data = saved + eps
                up = f()
                w.data = saved - eps
                down = f()
            finally:
                w.data = saved
            return (up - down) / (eps + eps)
        """,
    },
}
