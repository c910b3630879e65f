"""Wrong answers that lesson 08's checks must catch, and a right one they must accept."""

MUTANTS = {
    1: {  # predict the bytes a graph holds
        "wrong": {
            "mse's saved difference forgotten": """
                entries = (batch * nin + nin * nhidden + nhidden + 2 * batch * nhidden
                           + nhidden * nout + nout + batch * nout + batch * nout + 1)
                return itemsize * entries
            """,
            "the biases forgotten": """
                entries = (batch * nin + nin * nhidden + 2 * batch * nhidden
                           + nhidden * nout + batch * nout + 2 * batch * nout + 1)
                return itemsize * entries
            """,
            "8 bytes whatever the dtype": """
                entries = (batch * nin + nin * nhidden + nhidden + 2 * batch * nhidden
                           + nhidden * nout + nout + batch * nout + 2 * batch * nout + 1)
                return 8 * entries
            """,
            "the tanh output forgotten": """
                entries = (batch * nin + nin * nhidden + nhidden + batch * nhidden
                           + nhidden * nout + nout + batch * nout + 2 * batch * nout + 1)
                return itemsize * entries
            """,
            "the input x forgotten": """
                entries = (nin * nhidden + nhidden + 2 * batch * nhidden
                           + nhidden * nout + nout + batch * nout + 2 * batch * nout + 1)
                return itemsize * entries
            """,
            "the loss forgotten": """
                entries = (batch * nin + nin * nhidden + nhidden + 2 * batch * nhidden
                           + nhidden * nout + nout + batch * nout + 2 * batch * nout)
                return itemsize * entries
            """,
            "a float": """
                entries = (batch * nin + nin * nhidden + nhidden + 2 * batch * nhidden
                           + nhidden * nout + nout + batch * nout + 2 * batch * nout + 1)
                return itemsize * entries * 1.0
            """,
        },
        "right": """
            shapes = [(batch, nin), (nin, nhidden), (nhidden,), (batch, nhidden), (batch, nhidden),
                      (nhidden, nout), (nout,), (batch, nout), (batch, nout), (batch, nout), ()]
            return sum(math.prod(shape) for shape in shapes) * itemsize
        """,
    },
    2: {  # find and fix the leak
        # Edits of the solution's loop, whose running mean is `total += loss.item()` then
        # `running.append(total / (step + 1))`.
        "wrong": {
            "the leaky loop, floats at the end": [
                ("total += loss.item()", "total = total + loss"),
                ("return running", "return [r.item() for r in running]"),
            ],
            "total still chains every loss": [
                ("total += loss.item()\n        running.append(total / (step + 1))",
                 "total = total + loss\n        running.append(total.item() / (step + 1))"),
            ],
            "every loss kept for the mean": [
                ("    running = []\n", "    running = []\n    losses = []\n"),
                ("total += loss.item()\n        running.append(total / (step + 1))",
                 "losses.append(loss)\n        running.append(sum(l.item() for l in losses) / (step + 1))"),
            ],
            "gradients never cleared": [("        opt.zero_grad()\n", "")],
            "each step's loss, not the mean": [
                ("running.append(total / (step + 1))", "running.append(loss.item())"),
            ],
            "every loss kept for a plot": [
                ("    running = []\n", "    running = []\n    kept = []\n"),
                ("total += loss.item()", "total += loss.item()\n        kept.append(loss)"),
            ],
        },
        "right": [
            ("total += loss.item()\n        running.append(total / (step + 1))",
             "total = total + loss.detach()\n        running.append((total / (step + 1)).item())"),
        ],
    },
    3: {  # a checkpointed forward
        "wrong": {
            "the lambda reads start late": """
                h = x
                for start in range(0, len(layers), k):
                    segment = layers[start:start + k]
                    h = checkpoint(lambda t: run_blocks(layers[start:start + k], t), h)
                return h
            """,
            "the last short segment dropped": """
                h = x
                for start in range(0, len(layers) - k + 1, k):
                    segment = layers[start:start + k]
                    h = checkpoint(lambda t, segment=segment: run_blocks(segment, t), h)
                return h
            """,
            "no checkpoint": """
                return run_blocks(layers, x)
            """,
            "a checkpoint per block": """
                h = x
                for layer in layers:
                    h = checkpoint(lambda t, layer=layer: layer(t).tanh(), h)
                return h
            """,
            "one checkpoint around all": """
                return checkpoint(lambda t: run_blocks(layers, t), x)
            """,
            "the segment run outside checkpoint": """
                h = x
                for start in range(0, len(layers), k):
                    segment = layers[start:start + k]
                    h = checkpoint(lambda t: t, run_blocks(segment, h))
                return h
            """,
            "the segment's input captured": """
                h = x
                for start in range(0, len(layers), k):
                    segment = layers[start:start + k]
                    h = checkpoint(lambda t, segment=segment, h=h: run_blocks(segment, h), h)
                return h
            """,
        },
        "right": """
            import functools

            segments = [layers[i:i + k] for i in range(0, len(layers), k)]
            h = x
            for segment in segments:
                h = checkpoint(functools.partial(run_blocks, segment), h)
            return h
        """,
    },
}
